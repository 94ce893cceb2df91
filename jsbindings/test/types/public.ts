// Compiled with tsc --noEmit by test/types.test.js: the public API as the
// README and the examples use it.
import { createEngine, WebGGUFError, ErrorCode } from '../../src/index.js';
import type { ChatCompletionChunk, ModelInfo, LoadProgress } from '../../src/index.js';

async function publicDemo(): Promise<string> {
  const engine = await createEngine({ backend: 'auto', logger: console, assetBaseURL: '/assets/' });
  const m: ModelInfo = await engine.load('https://example.com/m.gguf', {
    contextSize: 2048,
    onProgress: (p: LoadProgress) => console.log(p.stage, p.fraction),
    signal: new AbortController().signal,
  });
  const r = await engine.chat.completions.create({ messages: [{ role: 'user', content: 'hi' }], max_tokens: 8, temperature: 0 });
  let text: string = r.choices[0].message.content + m.arch;
  const stream = await engine.chat.completions.create({ messages: [{ role: 'user', content: 'hi' }], stream: true, stop: ['\n'] });
  for await (const c of stream) {
    const chunk: ChatCompletionChunk = c;
    text += chunk.choices[0].delta.content ?? '';
    if (chunk.usage) text += chunk.usage.total_tokens + (chunk.timings?.predicted_per_second ?? 0);
  }
  const c = await engine.completions.create({ prompt: 'func', return_tokens: true });
  const ids: number[] = await engine.tokenize(c.choices[0].text);
  text += await engine.detokenize(ids);
  text += await engine.applyChatTemplate([{ role: 'user', content: 'x' }], { addGenerationPrompt: true });
  for (const e of await engine.models.list()) text += e.id + e.size;
  await engine.models.download('https://example.com/m.gguf', { onProgress: (p) => p.loaded });
  const est = await engine.models.estimate({ persist: true });
  const info = await engine.info();
  if (info.gpu.available) text += info.gpu.vendor;
  try {
    await engine.unload();
  } catch (e) {
    if (e instanceof WebGGUFError && e.code === ErrorCode.ContextFull) text += e.message;
  }
  engine.terminate();
  return text + est.quota;
}
void publicDemo;
