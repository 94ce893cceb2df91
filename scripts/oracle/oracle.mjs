// oracle.mjs: llama.cpp (through node-llama-cpp's prebuilt CPU binaries) as a
// JSON-lines server on stdin/stdout, so Go tests can compare webgguf with the
// reference implementation on inputs they generate.
//
// One request per line, one response per line, in order:
//   {"id":1,"op":"load","path":"testdata/models/x.gguf","vocabOnly":true,"contextSize":512,"threads":1}
//     -> {"id":1,"ok":true,"model":0,"nVocab":32000,"bos":1,"eos":2,"addBos":true,"addEos":false}
//   {"id":2,"op":"tokenize","model":0,"text":"Hi","addSpecial":false,"parseSpecial":true}
//     -> {"id":2,"ok":true,"ids":[...]}
//   {"id":3,"op":"detokenize","model":0,"ids":[...],"special":false} -> {"id":3,"ok":true,"text":"..."}
//   {"id":4,"op":"logits","model":0,"ids":[...],"all":false}
//     -> {"id":4,"ok":true,"logits":[[...nVocab floats after the last token...]]}
//        (with "all":true, one row per input position: teacher-forced logits;
//        with "top":K, each row is {"lse":..., "top":[[id, logit], ...K best]} instead)
//   {"id":5,"op":"generate","model":0,"ids":[...],"n":32} -> {"id":5,"ok":true,"ids":[...greedy...]}
//     (with "grammar":"<GBNF>", greedy constrained by llama.cpp's grammar sampler)
//   {"id":8,"op":"embed","model":0,"ids":[...],"rank":false}
//     -> {"id":8,"ok":true,"embedding":[...]}: llama_get_embeddings_seq after
//        evaluating ids as one sequence in an embeddings context (pooling as
//        the file says; with "rank":true a ranking context, whose vector is
//        the classifier's raw scores)
//   {"id":9,"op":"shift","model":0,"ids":[...],"keep":4,"discard":8,"n":16} -> {"id":9,"ok":true,"ids":[...greedy...]}
//     (evaluates all ids but the last, erases positions keep..keep+discard-1 as
//     llama.cpp's context shift does: llama_memory_seq_rm, then seq_add of
//     -discard to the later positions, whose keys llama.cpp re-rotates; then
//     greedy from the last id, as "generate"; with "logits":true also the
//     dense row each step drew from)
//   {"id":6,"op":"unload","model":0} -> {"id":6,"ok":true}
//   {"id":7,"op":"vocab","model":0} -> {"id":7,"ok":true,"attrs":[...llama_token_attr per id],"eog":[ids],"bos":1,"eos":2,"eot":null}
// Errors: {"id":N,"ok":false,"error":"..."}; the server keeps running.
//
// It never downloads or builds llama.cpp: build "never" and usePrebuiltBinaries
// pin it to the @node-llama-cpp/linux-x64 prebuilt binary installed by npm ci,
// and gpu false keeps it on the CPU backend (deterministic, no driver needed).
import readline from "node:readline";
import {getLlama, LlamaLogLevel, LlamaGrammarEvaluationState} from "node-llama-cpp";

process.env.NODE_LLAMA_CPP_SKIP_DOWNLOAD = "true";

const llama = await getLlama({
    gpu: false,
    build: "never",
    usePrebuiltBinaries: true,
    skipDownload: true,
    progressLogs: false,
    logLevel: LlamaLogLevel.error,
    logger: (level, message) => process.stderr.write(`[llama ${level}] ${message}\n`),
});

const models = new Map(); // handle -> {model, context, sequence}
let nextHandle = 0;

function need(req, field) {
    if (req[field] === undefined) throw new Error(`missing field ${field}`);
    return req[field];
}

function getModel(req) {
    const m = models.get(need(req, "model"));
    if (m == null) throw new Error(`unknown model handle ${req.model}`);
    return m;
}

// sequenceFor lazily creates one context per model, and gives a sequence with
// an empty KV cache so every request evaluates from position 0.
async function sequenceFor(m) {
    if (m.vocabOnly) throw new Error("model was loaded vocabOnly");
    if (m.context == null) {
        // One thread: llama.cpp's default (all cores, spinning) is orders of
        // magnitude slower on a shared 2-core machine, and one thread keeps
        // the float summation order fixed.
        m.context = await m.model.createContext({contextSize: m.contextSize, sequences: 1, flashAttention: false, threads: m.threads});
        m.sequence = m.context.getSequence();
    }
    await m.sequence.clearHistory();
    return m.sequence;
}

function vocabSize(model) {
    return model.fileInfo.metadata?.tokenizer?.ggml?.tokens?.length;
}

// specialId finds a bos/eos id the JS wrapper hides: node-llama-cpp reports
// only control-type special tokens, but llama_tokenize adds the id whatever
// its type (from the metadata, else llama.cpp's per-model default).
function specialId(model, key) {
    const ggml = model.fileInfo.metadata?.tokenizer?.ggml ?? {};
    const n = vocabSize(model);
    let id = ggml[key];
    if (id == null) id = ggml.model === "llama" ? (key === "bos_token_id" ? 1 : 2) : ggml.model === "gpt2" ? 11 : null;
    return id != null && id >= 0 && id < n ? id : null;
}

// denseRow turns node-llama-cpp's sorted Map<token, logit> into a row indexed by token id.
function denseRow(map, nVocab) {
    const row = new Array(nVocab).fill(null);
    for (const [tok, logit] of map) row[tok] = logit;
    return row;
}

// topRow summarizes a row like the testdata/ref fixtures: log-sum-exp of
// all logits and the k best [id, logit] pairs (the Map is sorted, best first).
function topRow(map, k) {
    let max = -Infinity;
    for (const l of map.values()) if (l > max) max = l;
    let sum = 0;
    for (const l of map.values()) sum += Math.exp(l - max);
    const top = [];
    for (const [tok, l] of map) {
        if (top.length >= k) break;
        top.push([tok, l]);
    }
    return {lse: max + Math.log(sum), top};
}

const handlers = {
    async load(req) {
        const vocabOnly = Boolean(req.vocabOnly);
        const model = await llama.loadModel({modelPath: need(req, "path"), gpuLayers: 0, vocabOnly});
        const handle = nextHandle++;
        models.set(handle, {model, vocabOnly, contextSize: req.contextSize ?? 512, threads: req.threads ?? 1});
        const t = model.tokens;
        return {
            model: handle,
            nVocab: vocabSize(model),
            bos: t.bos, eos: t.eos, eot: t.eot,
            addBos: t.shouldPrependBosToken, addEos: t.shouldAppendEosToken,
        };
    },
    async vocab(req) {
        // Per-token llama_token_attr bits and llama_vocab_is_eog, straight
        // from libllama (the JS wrapper's isEogToken adds nothing beyond
        // eos/eot, which libllama's set already holds).
        const {model} = getModel(req);
        const n = vocabSize(model);
        const attrs = new Array(n);
        const eog = [];
        for (let i = 0; i < n; i++) {
            attrs[i] = model._model.getTokenAttributes(i);
            if (model._model.isEogToken(i)) eog.push(i);
        }
        const t = model.tokens;
        return {attrs, eog, bos: t.bos, eos: t.eos, eot: t.eot};
    },
    async tokenize(req) {
        const {model} = getModel(req);
        const text = need(req, "text");
        // The addon always calls common_tokenize(add_special=false); add BOS/EOS
        // the way llama_tokenize(add_special=true) does for SPM and BPE vocabs.
        const ids = model.tokenize(text, Boolean(req.parseSpecial));
        if (req.addSpecial) {
            const t = model.tokens;
            const bos = t.bos ?? specialId(model, "bos_token_id");
            const eos = t.eos ?? specialId(model, "eos_token_id");
            if (t.shouldPrependBosToken && bos != null) ids.unshift(bos);
            if (t.shouldAppendEosToken && eos != null) ids.push(eos);
        }
        return {ids};
    },
    async detokenize(req) {
        const {model} = getModel(req);
        return {text: model.detokenize(need(req, "ids"), Boolean(req.special))};
    },
    async logits(req) {
        const m = getModel(req);
        const ids = need(req, "ids");
        if (ids.length === 0) throw new Error("logits needs at least one token");
        const seq = await sequenceFor(m);
        const nVocab = vocabSize(m.model);
        const input = ids.map((tok, i) => (req.all || i === ids.length - 1)
            ? [tok, {generateNext: {logits: true}}]
            : tok);
        const out = await seq.controlledEvaluate(input);
        const rows = [];
        for (let i = 0; i < ids.length; i++) {
            const map = out[i]?.next?.logits;
            if (map == null) continue;
            rows.push(req.top > 0 ? topRow(map, req.top) : denseRow(map, nVocab));
        }
        return {logits: rows};
    },
    async generate(req) {
        const m = getModel(req);
        const ids = [...need(req, "ids")];
        const n = need(req, "n");
        const seq = await sequenceFor(m);
        const out = [];
        if (req.grammar != null) {
            // Grammar-constrained greedy: node-llama-cpp's sampler with
            // temperature 0 and llama.cpp's grammar sampler (llama_grammar).
            const grammar = await llama.createGrammar({grammar: req.grammar});
            const state = new LlamaGrammarEvaluationState({model: m.model, grammar});
            for await (const tok of seq.evaluate(ids, {temperature: 0, grammarEvaluationState: state, yieldEogToken: true})) {
                out.push(tok);
                if (m.model.isEogToken(tok) || out.length >= n) break;
            }
            // A generator left early keeps the sequence busy (the next
            // evaluation fails): drop the context, the next request makes one.
            await m.context.dispose();
            m.context = null;
            return {ids: out};
        }
        let input = ids;
        for (let step = 0; step < n; step++) {
            const feed = input.map((tok, i) => i === input.length - 1 ? [tok, {generateNext: {logits: true}}] : tok);
            const res = await seq.controlledEvaluate(feed);
            const logits = res[input.length - 1].next.logits;
            // Greedy like llama.cpp's greedy sampler: highest logit, lowest id on ties.
            let best = -1, bestLogit = -Infinity;
            for (const [tok, l] of logits) {
                if (l > bestLogit || (l === bestLogit && tok < best)) { best = tok; bestLogit = l; }
            }
            out.push(best);
            if (m.model.isEogToken(best)) break;
            input = [best];
        }
        return {ids: out};
    },
    async embed(req) {
        // node-llama-cpp's embedding/ranking contexts, driven like their
        // getEmbeddingFor/rank: clear, evaluate the ids, read the pooled
        // vector (raw: no normalization, no sigmoid).
        const m = getModel(req);
        const ids = need(req, "ids");
        if (ids.length === 0) throw new Error("embed needs at least one token");
        const rank = Boolean(req.rank);
        const key = rank ? "rankContext" : "embedContext";
        if (m[key] == null) {
            m[key] = await m.model.createContext({contextSize: m.contextSize, batchSize: m.contextSize, threads: m.threads,
                _embeddings: true, ...(rank ? {_ranking: true} : {})});
            m[key + "Seq"] = m[key].getSequence();
        }
        const seq = m[key + "Seq"];
        await seq.eraseContextTokenRanges([{start: 0, end: seq.nextTokenIndex}]);
        for await (const _ of seq.evaluate(ids, {_noSampling: true})) break;
        const v = rank ? m[key]._ctx.getEmbedding(ids.length, 1) : m[key]._ctx.getEmbedding(ids.length);
        return {embedding: Array.from(v)};
    },
    async shift(req) {
        const m = getModel(req);
        const ids = need(req, "ids");
        const keep = need(req, "keep"), discard = need(req, "discard"), n = need(req, "n");
        if (ids.length < 2 || keep < 0 || discard <= 0 || keep + discard > ids.length - 1) throw new Error("shift needs keep + discard <= ids.length - 1");
        const seq = await sequenceFor(m);
        await seq.controlledEvaluate(ids.slice(0, -1));
        await seq.eraseContextTokenRanges([{start: keep, end: keep + discard}]);
        const out = [], rows = [];
        let input = ids.slice(-1);
        for (let step = 0; step < n; step++) {
            const res = await seq.controlledEvaluate(input.map((tok, i) => i === input.length - 1 ? [tok, {generateNext: {logits: true}}] : tok));
            const logits = res[input.length - 1].next.logits;
            if (req.logits) rows.push(denseRow(logits, vocabSize(m.model)));
            let best = -1, bestLogit = -Infinity;
            for (const [tok, l] of logits) {
                if (l > bestLogit || (l === bestLogit && tok < best)) { best = tok; bestLogit = l; }
            }
            out.push(best);
            if (m.model.isEogToken(best)) break;
            input = [best];
        }
        return req.logits ? {ids: out, logits: rows} : {ids: out};
    },
    async unload(req) {
        const m = getModel(req);
        if (m.embedContext != null) await m.embedContext.dispose();
        if (m.rankContext != null) await m.rankContext.dispose();
        if (m.context != null) await m.context.dispose();
        await m.model.dispose();
        models.delete(req.model);
        return {};
    },
};

const rl = readline.createInterface({input: process.stdin, crlfDelay: Infinity});
for await (const line of rl) {
    if (line.trim() === "") continue;
    let req;
    let resp;
    try {
        req = JSON.parse(line);
        const h = handlers[req.op];
        if (h == null) throw new Error(`unknown op ${JSON.stringify(req.op)}`);
        resp = {id: req.id, ok: true, ...(await h(req))};
    } catch (err) {
        resp = {id: req?.id, ok: false, error: String(err?.message ?? err)};
    }
    process.stdout.write(JSON.stringify(resp) + "\n");
}
for (const m of models.values()) {
    if (m.context != null) await m.context.dispose();
    await m.model.dispose();
}
await llama.dispose();
