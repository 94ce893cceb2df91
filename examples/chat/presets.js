// The model picker's presets. gotiny is served with this demo (make demo)
// and works offline; the others download from Hugging Face once, then load
// from the browser's model cache.
export const presets = [
  {
    id: 'gotiny',
    label: 'gotiny — 26M, Go code completion (local, 16 MB)',
    url: '../../testdata/models/gotiny-q4_k_m.gguf',
    mode: 'complete',
    note: 'gotiny is a tiny model (26M parameters) trained only on Go source code. It does not chat or follow instructions: type the start of some Go code and it writes a plausible continuation. It is served with this demo and works without internet.',
    placeholder: 'func reverse(s string) string {',
  },
  {
    id: 'smollm2-135m',
    label: 'SmolLM2 135M Instruct Q8_0 (145 MB)',
    url: 'https://huggingface.co/HuggingFaceTB/SmolLM2-135M-Instruct-GGUF/resolve/main/smollm2-135m-instruct-q8_0.gguf',
    mode: 'chat',
    note: 'A very small chat model: fast, often wrong. Downloaded from Hugging Face once, then cached in this browser.',
  },
  {
    id: 'qwen2.5-0.5b',
    label: 'Qwen2.5 0.5B Instruct Q4_K_M (398 MB)',
    url: 'https://huggingface.co/Qwen/Qwen2.5-0.5B-Instruct-GGUF/resolve/main/qwen2.5-0.5b-instruct-q4_k_m.gguf',
    mode: 'chat',
    note: 'A small multilingual chat model. Downloaded from Hugging Face once, then cached.',
  },
  {
    id: 'gemma-3-270m',
    label: 'Gemma 3 270M Instruct Q8_0 (292 MB)',
    url: 'https://huggingface.co/ggml-org/gemma-3-270m-it-GGUF/resolve/main/gemma-3-270m-it-Q8_0.gguf',
    mode: 'chat',
    note: "Google's smallest Gemma 3: sliding-window attention keeps its cache small. Downloaded from Hugging Face once, then cached.",
  },
  {
    id: 'gemma-3-1b',
    label: 'Gemma 3 1B Instruct Q4_K_M (806 MB)',
    url: 'https://huggingface.co/ggml-org/gemma-3-1b-it-GGUF/resolve/main/gemma-3-1b-it-Q4_K_M.gguf',
    mode: 'chat',
    note: 'Gemma 3 1B: a capable small chat model with a 262k-token vocabulary. Downloaded once, then cached.',
  },
  {
    id: 'llama-3.2-1b',
    label: 'Llama 3.2 1B Instruct Q4_K_M (808 MB)',
    url: 'https://huggingface.co/bartowski/Llama-3.2-1B-Instruct-GGUF/resolve/main/Llama-3.2-1B-Instruct-Q4_K_M.gguf',
    mode: 'chat',
    note: 'Better answers than the smaller presets, slower on the CPU backend. Downloaded once, then cached.',
  },
  {
    id: 'gemma-2-2b',
    label: 'Gemma 2 2B Instruct Q4_K_M (1.71 GB)',
    url: 'https://huggingface.co/bartowski/gemma-2-2b-it-GGUF/resolve/main/gemma-2-2b-it-Q4_K_M.gguf',
    mode: 'chat',
    note: 'Gemma 2 2B: soft-capped attention, sliding window on every other layer. A large download: best on WebGPU. Downloaded once, then cached.',
  },
  {
    id: 'smollm3-3b',
    label: 'SmolLM3 3B Q4_K_M (1.92 GB)',
    url: 'https://huggingface.co/bartowski/HuggingFaceTB_SmolLM3-3B-GGUF/resolve/main/HuggingFaceTB_SmolLM3-3B-Q4_K_M.gguf',
    mode: 'chat',
    note: 'SmolLM3 3B reasons in a <think> block before it answers; put /no_think in the system prompt to skip that. A large download: best on WebGPU. Downloaded once, then cached.',
  },
  {
    id: 'phi-3.5-mini',
    label: 'Phi-3.5 mini Instruct Q4_K_M (2.39 GB)',
    url: 'https://huggingface.co/bartowski/Phi-3.5-mini-instruct-GGUF/resolve/main/Phi-3.5-mini-instruct-Q4_K_M.gguf',
    mode: 'chat',
    note: "Microsoft's Phi-3.5 mini (3.8B): strong at reasoning and code for its size, English first. A large download: best on WebGPU. Downloaded once, then cached.",
  },
  {
    id: 'phi-4-mini',
    label: 'Phi-4 mini Instruct Q4_K_M (2.49 GB)',
    url: 'https://huggingface.co/unsloth/Phi-4-mini-instruct-GGUF/resolve/main/Phi-4-mini-instruct-Q4_K_M.gguf',
    mode: 'chat',
    note: "Microsoft's Phi-4 mini (3.8B, 200k-token vocabulary): the largest preset. A large download: best on WebGPU. Downloaded once, then cached.",
  },
  { id: 'custom', label: 'Custom URL…', mode: 'chat', note: 'Any GGUF URL whose server allows cross-origin requests (CORS).' },
  { id: 'file', label: 'Local file…', mode: 'chat', note: 'A .gguf file from this computer; it is not uploaded anywhere.' },
];
