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
    note: 'The largest preset: better answers, slower on the CPU backend. Downloaded once, then cached.',
  },
  { id: 'custom', label: 'Custom URL…', mode: 'chat', note: 'Any GGUF URL whose server allows cross-origin requests (CORS).' },
  { id: 'file', label: 'Local file…', mode: 'chat', note: 'A .gguf file from this computer; it is not uploaded anywhere.' },
];
