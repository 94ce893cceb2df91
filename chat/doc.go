// Package chat renders a model's chat template (the Jinja text stored in GGUF
// metadata under tokenizer.chat_template) into the prompt string the model was
// trained on, the way Hugging Face transformers' apply_chat_template and
// llama.cpp's --jinja mode do.
//
// Rendering uses gonja v2, a pure-Go Jinja implementation, configured like
// transformers' environment (trim_blocks, lstrip_blocks) and extended with the
// globals and filters real chat templates call: raise_exception, strftime_now
// and a tojson that formats like Python's json.dumps. The tests compare every
// rendered string with @huggingface/jinja, the JavaScript renderer
// transformers.js uses.
//
// Tool calling: DetectToolFormat finds the call syntax a template teaches
// (Hermes 2 Pro, Llama 3.x, Mistral Nemo), ParseToolCalls reads calls out of
// a model's output in that syntax, and ToolCallGrammar builds the grammar
// that forces a call whose arguments follow the tool's JSON Schema.
//
// A template comes from an untrusted model file and runs in the caller's
// process, where Go can recover from neither a stack overflow nor running
// out of memory. So parsing bounds how deeply a template nests, and each
// render has a budget of steps and bytes and checks every string and list
// it builds before building it (see Limits). A template past a limit fails
// with a *LimitError inside the usual *SyntaxError or *RuntimeError within
// about a second and a few hundred megabytes; the model stays usable with
// another template.
package chat
