// Jinja oracle for package chat's tests: reads one JSON request per line on
// stdin, {"template": "...", "context": {...}}, renders it with
// @huggingface/jinja (the renderer transformers.js and huggingface.js use), and
// writes one JSON line per request on stdout: {"output": "..."} or
// {"error": "..."}. Line-delimited so a Go test can keep one process for many
// renders instead of paying Node's start-up per case.
import { Template } from "@huggingface/jinja";
import { createInterface } from "node:readline";

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of rl) {
  if (line.trim() === "") continue;
  let reply;
  try {
    const req = JSON.parse(line);
    const out = new Template(req.template).render(req.context);
    reply = { output: out };
  } catch (e) {
    reply = { error: String(e && e.message ? e.message : e) };
  }
  process.stdout.write(JSON.stringify(reply) + "\n");
}
