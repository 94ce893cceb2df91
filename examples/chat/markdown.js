// Light markdown for model replies: fenced code blocks, inline code and
// **bold**. It builds DOM nodes with textContent only, so model output can
// never inject markup.

/** Renders text into el (replacing its children). */
export function renderMarkdown(el, text) {
  const frag = document.createDocumentFragment();
  const parts = text.split(/```/);
  parts.forEach((part, i) => {
    if (i % 2 === 1) {
      // A code block: drop the language tag line.
      const nl = part.indexOf('\n');
      const body = nl >= 0 && /^[\w+-]*$/.test(part.slice(0, nl)) ? part.slice(nl + 1) : part;
      const pre = document.createElement('pre');
      const code = document.createElement('code');
      code.textContent = body.replace(/\n$/, '');
      pre.append(code);
      frag.append(pre);
      return;
    }
    inline(frag, part);
  });
  el.replaceChildren(frag);
}

function inline(parent, text) {
  const re = /(`[^`\n]+`|\*\*[^*\n]+\*\*)/g;
  let last = 0;
  for (const m of text.matchAll(re)) {
    if (m.index > last) parent.append(text.slice(last, m.index));
    const tok = m[0];
    const node = document.createElement(tok.startsWith('`') ? 'code' : 'strong');
    node.textContent = tok.startsWith('`') ? tok.slice(1, -1) : tok.slice(2, -2);
    parent.append(node);
    last = m.index + tok.length;
  }
  if (last < text.length) parent.append(text.slice(last));
}
