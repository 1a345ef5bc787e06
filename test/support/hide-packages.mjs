// Preloaded with `node --import` to run as if the packages RATELAB_HIDE_PACKAGES names
// (comma-separated) were not installed: resolving one from CommonJS (require, createRequire)
// fails with the error Node gives for a missing package, so code that loads optional peer
// dependencies can be tested without uninstalling them.
import Module from 'node:module';

const hidden = new Set((process.env.RATELAB_HIDE_PACKAGES ?? '').split(',').filter(Boolean));
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (hidden.has(request)) {
    const error = new Error(`Cannot find module '${request}'`);
    error.code = 'MODULE_NOT_FOUND';
    throw error;
  }
  return resolve.call(this, request, ...rest);
};
