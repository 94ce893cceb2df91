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
package chat
