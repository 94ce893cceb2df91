"""Renders chat templates with Python's Jinja2 configured as transformers'
apply_chat_template does (ImmutableSandboxedEnvironment, trim_blocks,
lstrip_blocks, loop controls, tojson as json.dumps(ensure_ascii=False),
raise_exception, strftime_now, the `generation` block tag of its
AssistantTracker extension). Same line protocol as render.mjs: one JSON
request {"template", "context"} per line in, one {"output"} or {"error"} out.

package chat's tests use it to settle the cases where @huggingface/jinja and
Python's Jinja2, the reference implementation, disagree.
"""
import json
import sys
from datetime import datetime

import jinja2
from jinja2 import nodes
from jinja2.ext import Extension, loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment


def raise_exception(message):
    raise jinja2.exceptions.TemplateError(message)


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def strftime_now(fmt):
    return datetime.now().strftime(fmt)


class AssistantTracker(Extension):
    """transformers' `{% generation %}...{% endgeneration %}` (its
    AssistantTracker, without the token-mask bookkeeping): parsed into a call
    block whose body is rendered unchanged through caller()."""

    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(["name:endgeneration"], drop_needle=True)
        return nodes.CallBlock(self.call_method("_render_assistant", []), [], [], body).set_lineno(lineno)

    def _render_assistant(self, caller):
        return caller()


env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[AssistantTracker, loopcontrols])
env.filters["tojson"] = tojson
env.globals["raise_exception"] = raise_exception
env.globals["strftime_now"] = strftime_now

for line in sys.stdin:
    if not line.strip():
        continue
    try:
        req = json.loads(line)
        out = {"output": env.from_string(req["template"]).render(**req["context"])}
    except Exception as e:  # every failure is an answer, not a crash
        out = {"error": "%s: %s" % (type(e).__name__, e)}
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
