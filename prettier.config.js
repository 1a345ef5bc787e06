// The formatter: `npm run format` writes, `npm run format:check` (run by .ci/run after the
// type check and the lint) fails on any file it would change. .prettierignore says what it
// leaves alone and why.
/** @type {import('prettier').Config} */
export default {
  printWidth: 120,
  singleQuote: true,
  // Template literals are program output (terminal text, HTML, Lua): never reformatted.
  embeddedLanguageFormatting: 'off',
};
