// OpenAI-shaped request parsing and response building for the chat and
// completions APIs (https://platform.openai.com/docs/api-reference/chat),
// with llama.cpp server's sampling extensions and timings.

import { WebGGUFError } from './webgguf-error.js';

/** llama.cpp's defaults (common/common.h), which the server applies too. */
export const DEFAULTS = Object.freeze({ temperature: 0.8, top_k: 40, top_p: 0.95, min_p: 0.05, repeat_penalty: 1, repeat_last_n: 64 });

function num(req, name, def, lo, hi) {
  const v = req[name];
  if (v === undefined || v === null) return def;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < lo || v > hi) {
    throw new WebGGUFError('invalid-argument', `${name} must be a number in [${lo}, ${hi}], got ${JSON.stringify(v)}`);
  }
  return v;
}

/** The text of an OpenAI message content: a string or an array of text parts. */
export function contentText(content, i) {
  if (typeof content === 'string') return content;
  if (content === null || content === undefined) return '';
  if (Array.isArray(content)) {
    return content.map((p, j) => {
      if (p && p.type === 'text' && typeof p.text === 'string') return p.text;
      throw new WebGGUFError('invalid-argument', `messages[${i}].content[${j}]: only text parts are supported`);
    }).join('');
  }
  throw new WebGGUFError('invalid-argument', `messages[${i}].content must be a string or an array of text parts`);
}

/** Splits messages into the roles and contents the engine takes. */
export function splitMessages(messages) {
  if (!Array.isArray(messages) || messages.length === 0) throw new WebGGUFError('invalid-argument', 'messages must be a non-empty array');
  const roles = [];
  const contents = [];
  messages.forEach((m, i) => {
    if (!m || typeof m.role !== 'string' || !m.role) throw new WebGGUFError('invalid-argument', `messages[${i}].role must be a non-empty string`);
    roles.push(m.role);
    contents.push(contentText(m.content, i));
  });
  return { roles, contents };
}

/**
 * The chat fields of a request: roles and contents, and, when the
 * conversation or request involves tools, the whole conversation as JSON
 * (messages) so that assistant tool_calls and tool turns' tool_call_id and
 * name reach the chat template.
 */
export function chatFields(req) {
  /** @type {Record<string, any>} */
  const fields = { chat: true, ...splitMessages(req.messages), ...toolFields(req) };
  const withTools = fields.tools || req.messages.some((m) => m.role === 'tool' || m.tool_calls);
  if (!withTools) return fields;
  const msgs = req.messages.map((m, i) => {
    const out = { role: m.role, content: contentText(m.content, i) };
    if (m.tool_calls !== undefined && m.tool_calls !== null) {
      if (!Array.isArray(m.tool_calls)) throw new WebGGUFError('invalid-argument', `messages[${i}].tool_calls must be an array`);
      out.tool_calls = m.tool_calls.map((c, j) => {
        const f = c && c.function;
        if (!f || typeof f.name !== 'string' || !f.name) throw new WebGGUFError('invalid-argument', `messages[${i}].tool_calls[${j}].function.name must be a non-empty string`);
        const args = f.arguments ?? '{}';
        if (typeof args !== 'string' && (typeof args !== 'object' || Array.isArray(args))) throw new WebGGUFError('invalid-argument', `messages[${i}].tool_calls[${j}].function.arguments must be a JSON string or an object`);
        return { ...(c.id ? { id: String(c.id) } : {}), type: 'function', function: { name: f.name, arguments: args } };
      });
    }
    if (m.role === 'tool' && m.tool_call_id !== undefined) {
      if (typeof m.tool_call_id !== 'string') throw new WebGGUFError('invalid-argument', `messages[${i}].tool_call_id must be a string`);
      out.tool_call_id = m.tool_call_id;
    }
    if (typeof m.name === 'string' && m.name) out.name = m.name;
    return out;
  });
  fields.messages = JSON.stringify(msgs);
  return fields;
}

/**
 * The GenerateRequest fields of tools and tool_choice (OpenAI's shapes):
 * tools is a JSON array of { type: 'function', function: { name,
 * description, parameters } }; tool_choice 'auto' (the default), 'none',
 * 'required' or { type: 'function', function: { name } }.
 */
export function toolFields(req) {
  const { tools, tool_choice: choice } = req;
  if (tools === undefined || tools === null) {
    if (choice !== undefined && choice !== null && choice !== 'auto' && choice !== 'none') throw new WebGGUFError('invalid-argument', 'tool_choice needs tools');
    return {};
  }
  if (!Array.isArray(tools)) throw new WebGGUFError('invalid-argument', 'tools must be an array of { type: "function", function: { name, parameters } }');
  if (tools.length === 0) return {};
  tools.forEach((t, i) => {
    if (!t || t.type !== 'function' || !t.function || typeof t.function.name !== 'string' || !t.function.name) {
      throw new WebGGUFError('invalid-argument', `tools[${i}] must be { type: 'function', function: { name, parameters } }`);
    }
  });
  const out = { tools: JSON.stringify(tools) };
  if (choice === undefined || choice === null || choice === 'auto') out.toolChoice = 'auto';
  else if (choice === 'none' || choice === 'required') out.toolChoice = choice;
  else if (typeof choice === 'object' && choice.type === 'function' && choice.function && typeof choice.function.name === 'string' && choice.function.name) {
    out.toolChoice = 'function';
    out.toolName = choice.function.name;
  } else {
    throw new WebGGUFError('invalid-argument', "tool_choice must be 'auto', 'none', 'required' or { type: 'function', function: { name } }");
  }
  return out;
}

/** The tool_calls of a GenerateResponse (an array), or null when none. */
export function toolCallsOf(r) {
  if (!r.toolCalls) return null;
  return JSON.parse(r.toolCalls);
}

/** Builds the GenerateRequest fields shared by chat and completions. */
export function sampling(req) {
  if (req.n !== undefined && req.n !== 1) throw new WebGGUFError('invalid-argument', 'n must be 1: one choice per request');
  let stop = req.stop ?? [];
  if (typeof stop === 'string') stop = [stop];
  if (!Array.isArray(stop) || stop.some((s) => typeof s !== 'string' || s === '')) throw new WebGGUFError('invalid-argument', 'stop must be a non-empty string or an array of them');
  const maxTokens = num(req, 'max_completion_tokens', num(req, 'max_tokens', 0, 0, 2 ** 31 - 1), 0, 2 ** 31 - 1);
  if (req.contextShift !== undefined && typeof req.contextShift !== 'boolean') throw new WebGGUFError('invalid-argument', 'contextShift must be true or false');
  const seed = req.seed === undefined || req.seed === null ? (Math.random() * 2 ** 32) >>> 0 : num(req, 'seed', 0, -(2 ** 53), 2 ** 53) >>> 0;
  return {
    maxTokens: Math.floor(maxTokens),
    temperature: num(req, 'temperature', DEFAULTS.temperature, 0, 100),
    topK: Math.floor(num(req, 'top_k', DEFAULTS.top_k, 0, 2 ** 31 - 1)),
    topP: num(req, 'top_p', DEFAULTS.top_p, 0, 1),
    minP: num(req, 'min_p', DEFAULTS.min_p, 0, 1),
    repeatPenalty: num(req, 'repeat_penalty', DEFAULTS.repeat_penalty, 0, 100),
    penaltyLastN: Math.floor(num(req, 'repeat_last_n', DEFAULTS.repeat_last_n, 0, 65536)),
    frequencyPenalty: num(req, 'frequency_penalty', 0, -2, 2),
    presencePenalty: num(req, 'presence_penalty', 0, -2, 2),
    seed,
    stop,
    ignoreEOS: !!req.ignore_eos,
    ...constraints(req),
    contextShift: !!req.contextShift,
    nKeep: Math.floor(num(req, 'n_keep', 0, 0, 2 ** 31 - 1)),
  };
}

/**
 * The GenerateRequest fields of response_format and grammar: a JSON schema
 * (json_object is any object, or the llama.cpp extension's `schema`) or a
 * GBNF grammar, which the worker compiles and checks.
 */
export function constraints(req) {
  const rf = req.response_format;
  const g = req.grammar;
  if (g !== undefined && g !== null && (typeof g !== 'string' || g === '')) throw new WebGGUFError('invalid-argument', 'grammar must be a non-empty string (GBNF, llama.cpp syntax)');
  if (rf === undefined || rf === null) return g ? { grammar: g } : {};
  if (typeof rf !== 'object' || Array.isArray(rf)) throw new WebGGUFError('invalid-argument', "response_format must be an object such as { type: 'json_object' }");
  if (rf.type === 'text') return g ? { grammar: g } : {};
  if (g) throw new WebGGUFError('invalid-argument', 'grammar and response_format exclude each other');
  let schema;
  if (rf.type === 'json_object') {
    schema = rf.schema ?? {};
  } else if (rf.type === 'json_schema') {
    const js = rf.json_schema;
    if (!js || typeof js !== 'object') throw new WebGGUFError('invalid-argument', 'response_format.json_schema must be an object { name, schema, strict }');
    if (js.name !== undefined && typeof js.name !== 'string') throw new WebGGUFError('invalid-argument', 'response_format.json_schema.name must be a string');
    if (js.strict !== undefined && js.strict !== null && typeof js.strict !== 'boolean') throw new WebGGUFError('invalid-argument', 'response_format.json_schema.strict must be a boolean');
    schema = js.schema ?? {};
  } else {
    throw new WebGGUFError('invalid-argument', "response_format.type must be 'text', 'json_object' or 'json_schema'");
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) throw new WebGGUFError('invalid-argument', 'response_format: the schema must be an object');
  let text;
  try {
    text = JSON.stringify(schema);
  } catch (err) {
    throw new WebGGUFError('invalid-argument', 'response_format: the schema is not JSON: ' + err.message);
  }
  return { jsonSchema: text };
}

let seq = 0;
/** A response id like OpenAI's ("chatcmpl-…"). */
export function responseId(prefix) {
  seq = (seq + 1) >>> 0;
  return `${prefix}-${Date.now().toString(36)}${seq.toString(36)}`;
}

/** usage and timings (llama.cpp server's names) from a GenerateResponse. */
export function usageOf(r, ttftMs) {
  const usage = {
    prompt_tokens: r.promptTokens,
    completion_tokens: r.completionTokens,
    total_tokens: r.promptTokens + r.completionTokens,
    prompt_tokens_details: { cached_tokens: r.cachedTokens },
  };
  const evaluated = r.promptTokens - r.cachedTokens;
  const timings = {
    prompt_n: evaluated,
    prompt_ms: r.promptMs,
    prompt_per_second: r.promptMs > 0 ? (evaluated * 1000) / r.promptMs : 0,
    predicted_n: r.completionTokens,
    predicted_ms: r.genMs,
    // The first token comes out of the prompt's evaluation; the rest each
    // took a decode step.
    predicted_per_second: r.genMs > 0 ? ((r.completionTokens - 1) * 1000) / r.genMs : 0,
    time_to_first_token_ms: ttftMs,
    context_shifts: r.shifts ?? 0,
  };
  return { usage, timings };
}
