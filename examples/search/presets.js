// The model pickers' presets. tiny-bert is served with the repository and
// works offline; the others download from Hugging Face once, then load from
// the browser's model cache.
export const embedders = [
  {
    id: 'tiny-bert',
    label: 'tiny-bert — random weights (local, 1.6 MB)',
    url: '../../testdata/models/tiny-bert-f16.gguf',
    note: 'A 3-layer BERT with random weights and a small WordPiece vocabulary: the pipeline is real (tokenizer, encoder, mean pooling, cosine ranking) but the ranking means nothing. It is served with this page and works offline.',
  },
  {
    id: 'bge-small-en-v1.5',
    label: 'bge-small-en-v1.5 Q8_0 (36 MB)',
    url: 'https://huggingface.co/CompendiumLabs/bge-small-en-v1.5-gguf/resolve/main/bge-small-en-v1.5-q8_0.gguf',
    note: "BAAI's small English embedding model (384 dimensions, CLS pooling): real semantic search. Queries get bge's retrieval instruction in front, as its model card advises. Downloaded from Hugging Face once, then cached.",
    queryPrefix: 'Represent this sentence for searching relevant passages: ',
  },
  { id: 'custom', label: 'Other GGUF URL (bert family)…', url: '', note: 'Any bert-family embedding GGUF (bge, all-MiniLM, e5, …) or a decoder with a pooling type such as Qwen3-Embedding.' },
];
