// Logs from a worker, for the harness's own test: worker console lines reach
// the harness only through Chromium's log output.
console.log('worker-console-marker');
setTimeout(() => self.postMessage('done'), 200);
