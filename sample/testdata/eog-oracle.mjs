// eog-oracle.mjs MODEL.gguf...: prints, per model, the token ids llama.cpp
// treats as end of generation (llama_vocab_is_eog over the whole vocabulary),
// as one JSON line {"path": ..., "eog": [...]}. It uses the node-llama-cpp
// that scripts/oracle installs (prebuilt CPU binary, never downloads).
import {getLlama, LlamaLogLevel} from "../../scripts/oracle/node_modules/node-llama-cpp/dist/index.js";

process.env.NODE_LLAMA_CPP_SKIP_DOWNLOAD = "true";
const llama = await getLlama({
    gpu: false, build: "never", usePrebuiltBinaries: true, skipDownload: true,
    progressLogs: false, logLevel: LlamaLogLevel.error,
});
for (const path of process.argv.slice(2)) {
    const model = await llama.loadModel({modelPath: path, vocabOnly: true});
    const n = model.fileInfo.metadata?.tokenizer?.ggml?.tokens?.length ?? 0;
    const eog = [];
    for (let t = 0; t < n; t++) {
        if (model.isEogToken(t)) eog.push(t);
    }
    process.stdout.write(JSON.stringify({path, n, eog}) + "\n");
    await model.dispose();
}
process.exit(0);
