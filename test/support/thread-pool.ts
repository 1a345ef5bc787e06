import { Worker } from 'node:worker_threads';
import type { WorkerTask } from './shared-worker.js';

const boot = new URL('./ts-worker.mjs', import.meta.url);
const script = new URL('./shared-worker.ts', import.meta.url).href;

/** A worker thread running test/support/shared-worker.ts, answering one task at a time. */
export class TestThread {
  private constructor(readonly worker: Worker) {}

  static async start(): Promise<TestThread> {
    const worker = new Worker(boot, { workerData: { script, ready: true } });
    await new Promise<void>((ready, fail) => {
      worker.once('message', () => ready());
      worker.once('error', fail);
    });
    return new TestThread(worker);
  }

  ask<T>(task: WorkerTask): Promise<T> {
    return new Promise<T>((done, fail) => {
      const onError = (error: Error) => fail(error);
      this.worker.once('error', onError);
      this.worker.once('message', (value: T) => {
        this.worker.off('error', onError);
        done(value);
      });
      this.worker.postMessage(task);
    });
  }

  stop(): Promise<number> {
    return this.worker.terminate();
  }
}
