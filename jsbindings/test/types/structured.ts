// Compiled with tsc --noEmit by test/types.test.js: structured output as
// the README and examples/extract use it.
import { createEngine } from '../../src/index.js';
import type { ResponseFormat, JSONSchema } from '../../src/index.js';

async function structured(): Promise<string> {
  const engine = await createEngine();
  const schema: JSONSchema = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
  const r = await engine.chat.completions.create({
    messages: [{ role: 'user', content: 'Who?' }],
    response_format: { type: 'json_schema', json_schema: { name: 'person', schema, strict: true } },
  });
  let text = r.choices[0].message.content;
  const f: ResponseFormat = { type: 'json_object' };
  const stream = await engine.chat.completions.create({ messages: [{ role: 'user', content: 'x' }], stream: true, response_format: f });
  for await (const c of stream) text += c.choices[0].delta.content ?? '';
  const c = await engine.completions.create({ prompt: 'Answer: ', grammar: 'root ::= "yes" | "no"', max_tokens: 4 });
  // @ts-expect-error: the type of response_format is one of three
  await engine.completions.create({ prompt: 'x', response_format: { type: 'yaml' } });
  return text + c.choices[0].text;
}
void structured;
