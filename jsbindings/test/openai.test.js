import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sampling, splitMessages, usageOf, constraints, chatFields, toolFields, toolCallsOf, DEFAULTS } from '../src/openai.js';
import { WebGGUFError } from '../src/webgguf-error.js';
import { GlueCallError, GlueCrashedError } from '../src/errors.js';

test('sampling applies llama.cpp defaults and OpenAI names', () => {
  const s = sampling({ max_tokens: 7, stop: '\n', seed: 42 });
  assert.equal(s.maxTokens, 7);
  assert.equal(s.temperature, DEFAULTS.temperature);
  assert.equal(s.topK, 40);
  assert.equal(s.topP, 0.95);
  assert.equal(s.minP, 0.05);
  assert.deepEqual(s.stop, ['\n']);
  assert.equal(s.seed, 42);
  assert.equal(sampling({ max_completion_tokens: 3 }).maxTokens, 3);
  assert.equal(s.contextShift, false);
  assert.equal(s.nKeep, 0);
  const shift = sampling({ contextShift: true, n_keep: 12 });
  assert.equal(shift.contextShift, true);
  assert.equal(shift.nKeep, 12);
});

test('sampling rejects bad values with invalid-argument', () => {
  for (const bad of [{ temperature: -1 }, { temperature: NaN }, { top_p: 2 }, { n: 2 }, { stop: [''] }, { stop: 5 }, { max_tokens: -1 }, { top_k: 'x' }, { contextShift: 'yes' }, { n_keep: -1 }, { n_keep: 'x' }]) {
    assert.throws(() => sampling(bad), (e) => e instanceof WebGGUFError && e.code === 'invalid-argument', JSON.stringify(bad));
  }
});

test('messages: text parts join, bad shapes are invalid-argument', () => {
  const { roles, contents } = splitMessages([{ role: 'system', content: 'a' }, { role: 'user', content: [{ type: 'text', text: 'b' }, { type: 'text', text: 'c' }] }]);
  assert.deepEqual(roles, ['system', 'user']);
  assert.deepEqual(contents, ['a', 'bc']);
  for (const bad of [[], [{ content: 'x' }], [{ role: 'user', content: [{ type: 'image_url' }] }], [{ role: 'user', content: 3 }]]) {
    assert.throws(() => splitMessages(bad), (e) => e.code === 'invalid-argument');
  }
});

test('usage and timings from an engine response', () => {
  const { usage, timings } = usageOf({ promptTokens: 10, completionTokens: 5, cachedTokens: 4, promptMs: 30, genMs: 40 }, 35);
  assert.deepEqual(usage, { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, prompt_tokens_details: { cached_tokens: 4 } });
  assert.equal(timings.prompt_n, 6);
  assert.equal(timings.prompt_per_second, 200);
  assert.equal(timings.predicted_per_second, 100); // 4 decode steps in 40 ms
  assert.equal(timings.time_to_first_token_ms, 35);
});

test('WebGGUFError.from maps engine kinds, aborts, quota and crashes to codes', () => {
  assert.equal(WebGGUFError.from(new GlueCallError('context-full', 'full')).code, 'context-full');
  assert.equal(WebGGUFError.from(new GlueCallError('canceled', 'c')).code, 'aborted');
  assert.equal(WebGGUFError.from(new GlueCallError('decode.truncated', 'd')).code, 'invalid-argument');
  assert.equal(WebGGUFError.from(new GlueCallError('panic', 'p')).code, 'internal');
  assert.equal(WebGGUFError.from(new GlueCrashedError('gone')).code, 'crashed');
  assert.equal(WebGGUFError.from(new DOMException('x', 'AbortError')).code, 'aborted');
  assert.equal(WebGGUFError.from(new DOMException('x', 'QuotaExceededError')).code, 'quota');
  const cause = new Error('bad magic');
  const e = WebGGUFError.from(new GlueCallError('bad-file', 'not a GGUF', cause));
  assert.equal(e.code, 'bad-file');
  assert.match(e.message, /not a GGUF: bad magic/);
});

test('response_format and grammar become a JSON schema or a grammar for the worker', () => {
  const schema = { type: 'object', properties: { a: { type: 'integer' } }, required: ['a'] };
  assert.deepEqual(constraints({}), {});
  assert.deepEqual(constraints({ response_format: { type: 'text' } }), {});
  assert.deepEqual(constraints({ response_format: { type: 'json_object' } }), { jsonSchema: '{}' });
  assert.deepEqual(constraints({ response_format: { type: 'json_schema', json_schema: { name: 'x', schema, strict: true } } }), { jsonSchema: JSON.stringify(schema) });
  assert.deepEqual(constraints({ response_format: { type: 'json_schema', json_schema: { schema } } }), { jsonSchema: JSON.stringify(schema) });
  assert.deepEqual(constraints({ grammar: 'root ::= "a"' }), { grammar: 'root ::= "a"' });
  assert.equal(sampling({ grammar: 'root ::= "a"' }).grammar, 'root ::= "a"');
  assert.equal(sampling({ ignore_eos: true }).ignoreEOS, true);
  const cyclic = {};
  cyclic.self = cyclic;
  for (const [i, bad] of [{ grammar: '' }, { grammar: 5 }, { response_format: 'json' }, { response_format: { type: 'yaml' } },
    { response_format: { type: 'json_schema' } }, { response_format: { type: 'json_schema', json_schema: { name: 3, schema } } },
    { response_format: { type: 'json_schema', json_schema: { schema: [] } } }, { response_format: { type: 'json_schema', json_schema: { schema: cyclic } } },
    { response_format: { type: 'json_object' }, grammar: 'root ::= "a"' }].entries()) {
    assert.throws(() => constraints(bad), (e) => e instanceof WebGGUFError && e.code === 'invalid-argument', `case ${i}`);
  }
});

test('tools and tool_choice become the worker\'s fields; bad shapes are invalid-argument', () => {
  const tools = [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }];
  assert.deepEqual(toolFields({}), {});
  assert.deepEqual(toolFields({ tools }), { tools: JSON.stringify(tools), toolChoice: 'auto' });
  assert.deepEqual(toolFields({ tools, tool_choice: 'required' }).toolChoice, 'required');
  assert.deepEqual(toolFields({ tools, tool_choice: 'none' }).toolChoice, 'none');
  const forced = toolFields({ tools, tool_choice: { type: 'function', function: { name: 'f' } } });
  assert.equal(forced.toolChoice, 'function');
  assert.equal(forced.toolName, 'f');
  for (const bad of [{ tools: {} }, { tools: [{ type: 'function' }] }, { tools: [{ type: 'code', function: { name: 'x' } }] }, { tools, tool_choice: 'sometimes' },
    { tools, tool_choice: { type: 'function' } }, { tool_choice: 'required' }]) {
    assert.throws(() => toolFields(bad), (e) => e instanceof WebGGUFError && e.code === 'invalid-argument', JSON.stringify(bad));
  }
  // Plain conversations keep the roles/contents form only.
  assert.equal(chatFields({ messages: [{ role: 'user', content: 'hi' }] }).messages, undefined);
  const f = chatFields({ messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '{"x":1}' } }] },
    { role: 'tool', tool_call_id: 'a', content: [{ type: 'text', text: '2' }] }] });
  assert.deepEqual(JSON.parse(f.messages), [{ role: 'user', content: 'hi' }, { role: 'assistant', content: '', tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '{"x":1}' } }] },
    { role: 'tool', content: '2', tool_call_id: 'a' }]);
  for (const bad of [[{ role: 'assistant', content: '', tool_calls: {} }], [{ role: 'assistant', content: '', tool_calls: [{ function: {} }] }], [{ role: 'tool', content: '', tool_call_id: 5 }]]) {
    assert.throws(() => chatFields({ messages: bad }), (e) => e.code === 'invalid-argument', JSON.stringify(bad));
  }
  assert.equal(toolCallsOf({ toolCalls: '' }), null);
  assert.deepEqual(toolCallsOf({ toolCalls: '[{"id":"a"}]' }), [{ id: 'a' }]);
});
