// The browser half of package webgpu, so that every token step is one Go→JS
// call (runTape) instead of one per WebGPU call. Loading this file (as a
// module, a classic script, or — failing those — evaluated by device_js.go)
// defines globalThis.webggufGPURuntime, a factory: each call makes a fresh
// runtime (one device each). The engine worker (worker/worker.js) imports it
// as a real script so a strict Content-Security-Policy without
// 'unsafe-eval' keeps WebGPU working.
globalThis.webggufGPURuntime = () => {
  const rt = {
    objs: [null], // registry: Go holds indices, never JS objects
    free: [],
    tapes: new Map(),
    maps: new Map(),
    staging: new Uint8Array(1 << 16),
    scratch: new Uint8Array(64),
    runError: null, // first error caught by the scopes around a submit
    pending: [], // pipelines being created (createPipeline, settlePipelines)
    pendingBG: [], // bind groups' and small buffers' error-scope checks (settlePipelines)
  };
  const add = (o) => {
    const i = rt.free.length ? rt.free.pop() : rt.objs.length;
    rt.objs[i] = o;
    return i;
  };
  rt.release = (i) => {
    const o = rt.objs[i];
    if (o && o.destroy) o.destroy();
    rt.objs[i] = null;
    rt.free.push(i);
  };
  const kindType = ["uniform", "read-only-storage", "storage"];
  const want = ["shader-f16", "subgroups", "timestamp-query"];
  const limitNames = [
    "maxBufferSize", "maxStorageBufferBindingSize", "maxUniformBufferBindingSize",
    "minStorageBufferOffsetAlignment", "minUniformBufferOffsetAlignment",
    "maxStorageBuffersPerShaderStage", "maxBindingsPerBindGroup",
    "maxComputeWorkgroupStorageSize", "maxComputeInvocationsPerWorkgroup",
    "maxComputeWorkgroupSizeX", "maxComputeWorkgroupSizeY", "maxComputeWorkgroupSizeZ",
    "maxComputeWorkgroupsPerDimension",
  ];

  // scoped runs f inside validation and out-of-memory error scopes and
  // resolves to [result, errorMessage or null].
  const scoped = async (dev, f) => {
    dev.pushErrorScope("out-of-memory");
    dev.pushErrorScope("validation");
    let r = null, ex = null;
    try { r = f(); } catch (e) { ex = e; }
    // Pop both scopes synchronously: awaiting between the pops would let
    // another scoped call push in between and take the wrong scope.
    const [v, m] = await Promise.all([dev.popErrorScope(), dev.popErrorScope()]);
    if (ex) return [null, String(ex && ex.message || ex)];
    if (v) return [r, "validation: " + v.message];
    if (m) return [r, "out-of-memory: " + m.message];
    return [r, null];
  };

  // deferred creates an object with make() inside error scopes and returns
  // {id} at once (or {err} if make threw); the scopes are checked by
  // settlePipelines, whose bgErr names the object by what.
  const deferred = (what, make) => {
    let o = null, ex = null;
    const check = scoped(rt.dev, () => {
      try { o = make(); } catch (e) { ex = e; }
    }).then(([, err]) => err ? `${what}: ${err}` : null);
    if (!o) return { err: String(ex && ex.message || ex || `${what}: nothing created`) };
    rt.pendingBG.push(check);
    return { id: add(o) };
  };

  // open resolves to {dev, info} or rejects with a message.
  rt.open = async (power, disabled, onLost) => {
    if (!globalThis.navigator || !navigator.gpu) throw new Error("navigator.gpu missing (no WebGPU)");
    const opts = power ? { powerPreference: power } : {};
    let ad = await navigator.gpu.requestAdapter(opts);
    // A power preference is a hint, but headless Chromium 156 on Linux with
    // an NVIDIA GPU (Vulkan) answers 'high-performance' with null while the
    // same GPU comes back when asked without one (measured on the lent
    // H100, scripts/harness/gpuprobe): ask again without the hint.
    if (!ad && power) ad = await navigator.gpu.requestAdapter();
    if (!ad) throw new Error("requestAdapter returned null");
    const features = want.filter((f) => ad.features.has(f) && !disabled.includes(f));
    const requiredLimits = {};
    for (const n of limitNames) if (n in ad.limits) requiredLimits[n] = ad.limits[n];
    const dev = await ad.requestDevice({ requiredFeatures: features, requiredLimits });
    dev.lost.then((info) => onLost(String(info.reason), String(info.message)));
    dev.onuncapturederror = (e) => { if (!rt.runError) rt.runError = String(e.error && e.error.message); };
    const ai = ad.info || {};
    const limits = {};
    for (const n of limitNames) limits[n] = Number(dev.limits[n] || 0);
    rt.dev = dev;
    return {
      adapter: [ai.vendor, ai.architecture, ai.device, ai.description].filter(Boolean).join(" ") || "unknown",
      vendor: String(ai.vendor || ""), architecture: String(ai.architecture || ""),
      fallback: !!(ai.isFallbackAdapter || ad.isFallbackAdapter),
      subgroupMin: Number(ai.subgroupMinSize || 0), subgroupMax: Number(ai.subgroupMaxSize || 0),
      features: features.filter((f) => dev.features.has(f)).join(","),
      limits,
    };
  };

  rt.createBuffer = async (label, size, usage) => {
    const [b, err] = await scoped(rt.dev, () => rt.dev.createBuffer({ label, size, usage }));
    if (err) { if (b) b.destroy(); return { err }; }
    return { id: add(b) };
  };

  // createSmallBuffer is createBuffer without the wait: the id at once,
  // the error scopes checked by settlePipelines. For buffers that cannot
  // run a device out of memory (the Go side sends those of at most 1 MiB:
  // readback slots, parameters, norm weights, a hundred a model), whose
  // arguments it has validated.
  rt.createSmallBuffer = (label, size, usage) =>
    deferred(`buffer ${label}`, () => rt.dev.createBuffer({ label, size, usage }));

  rt.write = (id, off, n) => rt.dev.queue.writeBuffer(rt.objs[id], off, rt.staging, 0, n);
  rt.writeJS = (id, off, arr) => rt.dev.queue.writeBuffer(rt.objs[id], off, arr);
  rt.stage = (n) => {
    if (rt.staging.length < n) rt.staging = new Uint8Array(Math.max(n, 2 * rt.staging.length));
    return rt.staging;
  };

  // createPipeline returns the pipeline's and its layout's ids at once and
  // leaves every check to settlePipelines: the module's compilation
  // messages, the error scopes around the module, layout and pipeline
  // layout, and the pipeline itself, created in the background
  // (createComputePipelineAsync: the driver's compile, the bulk of a model
  // load on SwiftShader, ~0.4 s a kernel), so a model's kernels compile
  // concurrently and the worker never waits for a round trip to the GPU
  // process per pipeline. The pipeline's slot holds a placeholder until it
  // is ready. A thrown exception (no module at all) is returned as err.
  rt.createPipeline = (label, code, entryPoint, kinds) => {
    const dev = rt.dev;
    const entries = Array.from(kinds, (k, i) => ({ binding: i, visibility: GPUShaderStage.COMPUTE, buffer: { type: kindType[k] } }));
    dev.pushErrorScope("out-of-memory");
    dev.pushErrorScope("validation");
    let mod = null, bgl = null, layout = null, ex = null;
    try {
      mod = dev.createShaderModule({ label, code });
      bgl = dev.createBindGroupLayout({ label, entries });
      layout = dev.createPipelineLayout({ label, bindGroupLayouts: [bgl] });
    } catch (e) { ex = e; }
    const pops = Promise.all([dev.popErrorScope(), dev.popErrorScope()]);
    if (ex) {
      pops.catch(() => {});
      return { err: String(ex && ex.message || ex) };
    }
    const slot = { pending: label };
    const id = add(slot);
    const made = dev.createComputePipelineAsync({ label, layout, compute: { module: mod, entryPoint } })
      .then((p) => ({ p }), (e) => ({ e: String(e && e.message || e) }));
    rt.pending.push(Promise.all([mod.getCompilationInfo(), pops, made]).then(([info, [v, m], r]) => {
      // The compiler's own messages first: they name the line.
      const errs = info.messages.filter((x) => x.type === "error").map((x) => `${x.lineNum}:${x.linePos}: ${x.message}`);
      if (errs.length) return `${label}: ${errs.join("\n")}`;
      if (v) return `${label}: validation: ${v.message}`;
      if (m) return `${label}: out-of-memory: ${m.message}`;
      if (r.e) return `${label}: ${r.e}`;
      if (rt.objs[id] === slot) rt.objs[id] = r.p;
      return null;
    }, (e) => `${label}: ${String(e && e.message || e)}`));
    return { id, bgl: add(bgl) };
  };

  // settlePipelines waits for every pipeline createPipeline started and
  // the error scopes of every bind group and small buffer; err lists the
  // pipelines that failed, bgErr the others.
  rt.settlePipelines = async () => {
    const ps = rt.pending, bs = rt.pendingBG;
    rt.pending = [];
    rt.pendingBG = [];
    const errs = (await Promise.all(ps)).filter((e) => e !== null);
    const bgErrs = (await Promise.all(bs)).filter((e) => e !== null);
    const r = {};
    if (errs.length) r.err = errs.join("\n");
    if (bgErrs.length) r.bgErr = bgErrs.join("\n");
    return r;
  };

  // createBindGroup returns the id at once; its error scopes are checked
  // by settlePipelines (the Go side validates every entry first, so they
  // report nothing but a browser's own refusal). Awaiting each one was a
  // round trip to the GPU process per bind group, a few hundred a model.
  // flat: [bufferId, offset, size] per binding.
  rt.createBindGroup = (label, bgl, flat) => {
    const entries = [];
    for (let i = 0; i < flat.length; i += 3) {
      entries.push({ binding: i / 3, resource: { buffer: rt.objs[flat[i]], offset: flat[i + 1], size: flat[i + 2] } });
    }
    return deferred(label, () => rt.dev.createBindGroup({ label, layout: rt.objs[bgl], entries }));
  };

  rt.createQuerySet = async (count) => {
    const [q, err] = await scoped(rt.dev, () => rt.dev.createQuerySet({ type: "timestamp", count }));
    if (err) return { err };
    return { id: add(q) };
  };

  rt.setTape = (id, ops) => rt.tapes.set(id, ops.slice());
  rt.dropTape = (id) => rt.tapes.delete(id);

  // runTape encodes a whole recorded tape in one command buffer and submits
  // it (encodeTape, then submitEncoded). ops is a Uint32Array: dispatch = [0, pipeline, bindGroup, x, y, z];
  // copy = [1, src, srcLo, srcHi, dst, dstLo, dstHi, sizeLo, sizeHi];
  // clear = [3, 0, 0, 0, dst, dstLo, dstHi, sizeLo, sizeHi];
  // readback = [2, src, srcLo, srcHi, 0, 0, 0, sizeLo, sizeHi] whose
  // destinations come from slots, [buffer, offset, full] per readback in
  // order: the slot buffer, the byte offset of this result in it (a
  // batched ring's slot holds several), and 1 when this result completes
  // the slot's batch, so that the submit starts its map. timing is
  // [querySet, resolveBuf, readBuf] or null.
  rt.runTape = (id, slots, timing) => rt.submitEncoded(rt.encodeTape(id, slots, timing));

  // encodeTape encodes tape id (as runTape) into a finished command buffer
  // without submitting it, so the host can encode step n+1 while the GPU
  // runs step n (Tape.Encode); it returns a handle for submitEncoded (or
  // dropEncoded). Validation errors of the encode surface through
  // takeRunError like those of a submit.
  rt.encodeTape = (id, slots, timing) => {
    const ops = rt.tapes.get(id), o = rt.objs, dev = rt.dev;
    const hi = 4294967296;
    dev.pushErrorScope("validation");
    const enc = dev.createCommandEncoder();
    let pass = null, cur = -1, ns = 0, nd = 0;
    for (let i = 0; i < ops.length;) {
      const k = ops[i];
      if (k === 0) {
        if (timing) {
          pass = enc.beginComputePass({ timestampWrites: { querySet: o[timing[0]], beginningOfPassWriteIndex: 2 * nd, endOfPassWriteIndex: 2 * nd + 1 } });
        } else if (!pass) {
          pass = enc.beginComputePass();
        }
        if (ops[i + 1] !== cur) { pass.setPipeline(o[ops[i + 1]]); cur = ops[i + 1]; }
        pass.setBindGroup(0, o[ops[i + 2]]);
        pass.dispatchWorkgroups(ops[i + 3], ops[i + 4], ops[i + 5]);
        nd++;
        if (timing) { pass.end(); pass = null; cur = -1; }
        i += 6;
      } else {
        if (pass) { pass.end(); pass = null; cur = -1; }
        if (k === 3) {
          enc.clearBuffer(o[ops[i + 4]], ops[i + 5] + ops[i + 6] * hi, ops[i + 7] + ops[i + 8] * hi);
          i += 9;
          continue;
        }
        const dst = k === 1 ? o[ops[i + 4]] : o[slots[3 * ns]];
        const dstOff = k === 1 ? ops[i + 5] + ops[i + 6] * hi : slots[3 * ns + 1];
        if (k === 2) ns++;
        enc.copyBufferToBuffer(o[ops[i + 1]], ops[i + 2] + ops[i + 3] * hi, dst, dstOff, ops[i + 7] + ops[i + 8] * hi);
        i += 9;
      }
    }
    if (pass) pass.end();
    if (timing) {
      enc.resolveQuerySet(o[timing[0]], 0, 2 * nd, o[timing[1]], 0);
      enc.copyBufferToBuffer(o[timing[1]], 0, o[timing[2]], 0, 16 * nd);
    }
    const cb = enc.finish();
    dev.popErrorScope().then((e) => { if (e && !rt.runError) rt.runError = e.message; });
    // The maps to start at the submit: slots this step's result fills.
    // A slot still taking results is mapped later, when full or when the
    // host reads it (startMap from Readback.Read): one mapAsync round
    // trip per batch instead of one per step.
    const maps = [];
    for (let j = 0; j < slots.length; j += 3) if (slots[j + 2]) maps.push(slots[j]);
    return add({ cb, maps, timing });
  };

  // submitEncoded submits an encodeTape result and starts the maps of the
  // readback slots it filled; the handle is released.
  rt.submitEncoded = (h) => {
    const e = rt.objs[h], dev = rt.dev;
    rt.release(h);
    dev.pushErrorScope("validation");
    dev.queue.submit([e.cb]);
    dev.popErrorScope().then((err) => { if (err && !rt.runError) rt.runError = err.message; });
    for (const s of e.maps) rt.startMap(s);
    if (e.timing) rt.startMap(e.timing[2]);
  };
  rt.dropEncoded = (h) => rt.release(h);

  rt.startMap = (id) => {
    rt.maps.set(id, rt.objs[id].mapAsync(GPUMapMode.READ).then(() => null, (e) => String(e && e.message || e)));
  };
  rt.mapped = (id) => rt.maps.get(id);

  // readMapped copies the first n mapped bytes (a batch's results) into the
  // scratch array, unmaps, and returns the scratch (reused: no allocation
  // per step).
  rt.readMapped = (id, n) => {
    if (rt.scratch.length < n) rt.scratch = new Uint8Array(n);
    const b = rt.objs[id];
    rt.scratch.set(new Uint8Array(b.getMappedRange(0, n)));
    b.unmap();
    rt.maps.delete(id);
    return rt.scratch;
  };

  // copyOut copies size bytes at off of buffer src into a fresh map-read
  // buffer and maps it; resolves to its id (or {err}).
  rt.copyOut = async (src, off, size) => {
    const dev = rt.dev;
    const [st, err] = await scoped(dev, () => {
      const st = dev.createBuffer({ size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
      const enc = dev.createCommandEncoder();
      enc.copyBufferToBuffer(rt.objs[src], off, st, 0, size);
      dev.queue.submit([enc.finish()]);
      return st;
    });
    if (err) { if (st) st.destroy(); return { err }; }
    try { await st.mapAsync(GPUMapMode.READ); } catch (e) { st.destroy(); return { err: String(e && e.message || e) }; }
    const out = new Uint8Array(st.getMappedRange(0, size)).slice();
    st.destroy();
    return { bytes: out };
  };

  rt.abandon = (id) => {
    try { rt.objs[id].unmap(); } catch (e) { }
    rt.maps.delete(id);
  };

  rt.takeRunError = () => { const e = rt.runError; rt.runError = null; return e; };
  return rt;
};
