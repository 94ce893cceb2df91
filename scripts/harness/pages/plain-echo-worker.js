// Baseline for the benchmark: a plain JavaScript worker that sends every
// ArrayBuffer straight back (transferred), with no Go and no decoding.
self.onmessage = (e) => self.postMessage(e.data, [e.data]);
