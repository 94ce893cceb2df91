package shaders

import (
	"bytes"
	"embed"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"text/template"

	"github.com/webgguf/webgguf/gguf"
)

//go:embed wgsl
var wgslFS embed.FS

// maxWorkgroupBytes is WebGPU's default maxComputeWorkgroupStorageSize,
// which every device grants; no kernel asks for more.
const maxWorkgroupBytes = 16384

// KeyError reports a key Build cannot specialize: which field and why.
type KeyError struct {
	Key    Key
	Field  string
	Reason string
}

// Error names the op, the key field and the reason.
func (e *KeyError) Error() string {
	return fmt.Sprintf("shaders: %s: key field %s: %s", e.Key.Op, e.Field, e.Reason)
}

// tmplData is what the op templates see: the resolved key plus values
// derived from it (so templates never compute sizes themselves).
type tmplData struct {
	Key
	KVF16   bool
	RM, RN  int // matmul register tile per thread
	RedSize int // matvec reduction array length
	BC      int // attn_prefill keys per shared tile
	DPT     int // attention head dims per thread
	Lanes   int // attn_decode_gqa.wgsl: query heads a workgroup serves (gqaLanes)
	Subs    int // and workgroups per KV head
	Elt     string
	// ActFn is the WGSL function of the key's activation (Key.Act; the
	// element-wise GELU ops set it too): common.wgsl defines gelu only
	// where it is "gelu".
	ActFn string
	Plain bool // f32/f16/bf16 weights (matvec's vec4 path)
	// MixedQKV: a QKV matmul whose K or V matrix has another format than
	// Q (Key.WeightK, WeightV): each matrix gets its own staging reads.
	MixedQKV bool
	// VecW, VecK, VecV: the weight binding w (and SwiGLU's wu), wk, wv is
	// array<vec4<u32>> (plain formats in matvec, packed ones in the
	// matvecs) instead of array<u32>.
	VecW, VecK, VecV bool
	// WLoad is the matmul's words per weight load for plain formats with
	// Key.XVec (2: f16 and bf16 bound as array<vec2<u32>>, 4: f32 as
	// array<vec4<u32>>); 0: array<u32>, read a word at a time.
	WLoad int
	// ChunkWords and PackSrc are the repack kernel's chunk size in words and
	// its WGSL map from packed to source byte.
	ChunkWords int
	PackSrc    string
	// MaxHeadDim is the longest head row rope_kv's Norm variant stages
	// in workgroup memory (RoPEKVNormMaxHeadDim).
	MaxHeadDim int
}

var (
	cacheMu sync.Mutex
	cache   = map[Key]Kernel{}
)

// Build specializes the kernel named by key. The result is cached by the
// resolved key; Build is safe for concurrent use.
func Build(key Key) (Kernel, error) {
	spec, ok := specs[key.Op]
	if !ok {
		return Kernel{}, &KeyError{key, "Op", "unknown op"}
	}
	if key.Subgroups {
		return Kernel{}, &KeyError{key, "Subgroups", "no subgroup variant yet; build with Subgroups false"}
	}
	if key.Act != ActSiLU && (key.Act > ActGELU || !key.SwiGLU || key.Op != OpMatvec && key.Op != OpMatmul) {
		return Kernel{}, &KeyError{key, "Act", fmt.Sprintf("%s: only a SwiGLU matvec or matmul takes an activation (silu or gelu)", key.Act)}
	}
	k, err := spec.resolve(key)
	if err != nil {
		return Kernel{}, err
	}
	// Packed survives only where a weight of the key has a packed layout,
	// Ragged only where Packed does (and on the repack kernel).
	k.Packed = key.Packed && spec.weights && (packedType(k.Weight) ||
		(k.Op == OpMatvecQKV || k.Op == OpMatmul && k.QKV) && (packedType(k.WeightK) || packedType(k.WeightV)))
	if k.Op != OpRepack {
		k.Ragged = key.Ragged && k.Packed
	}
	cacheMu.Lock()
	kern, hit := cache[k]
	cacheMu.Unlock()
	if hit {
		return kern, nil
	}
	d := tmplData{Key: k, KVF16: k.KV == gguf.TypeF16, ActFn: k.Act.String()}
	if spec.derive != nil {
		spec.derive(&d)
	}
	if n := spec.wgBytes(d); n > maxWorkgroupBytes {
		return Kernel{}, &KeyError{k, "WG", fmt.Sprintf("needs %d bytes of workgroup memory, over WebGPU's default %d", n, maxWorkgroupBytes)}
	}
	src, err := assemble(spec, d)
	if err != nil {
		return Kernel{}, err
	}
	kern = Kernel{
		Key:            k,
		WGSL:           src,
		Entry:          "main",
		Bindings:       spec.bindings(k),
		BindingNames:   spec.names(k),
		Dispatch:       func(s Shape) (uint32, uint32, uint32) { return spec.dispatch(k, s) },
		WorkgroupBytes: spec.wgBytes(d),
	}
	cacheMu.Lock()
	cache[k] = kern
	cacheMu.Unlock()
	return kern, nil
}

var funcs = template.FuncMap{
	"add": func(a, b int) int { return a + b },
	"mul": func(a, b int) int { return a * b },
	"div": func(a, b int) int { return a / b },
	"mod": func(a, b int) int { return a % b },
	// f32 spells a float32 as a WGSL literal that parses back to it.
	"f32": func(x float32) string {
		s := strconv.FormatFloat(float64(x), 'g', -1, 32)
		if !strings.ContainsAny(s, ".e") {
			s += ".0"
		}
		return s
	},
	// seq n is 0..n-1, for loops the template unrolls.
	"seq": func(n int) []int {
		s := make([]int, n)
		for i := range s {
			s[i] = i
		}
		return s
	},
}

func readWGSL(name string) (string, error) {
	b, err := wgslFS.ReadFile("wgsl/" + name)
	return string(b), err
}

func execTemplate(name, text string, d tmplData) (string, error) {
	t, err := parsedTemplate(name, text)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, d); err != nil {
		return "", fmt.Errorf("shaders: template %s: %w", name, err)
	}
	return buf.String(), nil
}

// Parsed templates, by name and text: parsing was two thirds of a Build
// (about 7 ms of a kernel's 14 under wasm, where a model load builds
// every kernel it uses). A parsed template executes safely in parallel.
var (
	parsedMu sync.Mutex
	parsed   = map[[2]string]*template.Template{}
)

// parsedTemplate parses text with the shared definitions (reduce, kv,
// mv_common, mm_dq) once and returns the cached template afterwards.
func parsedTemplate(name, text string) (*template.Template, error) {
	key := [2]string{name, text}
	parsedMu.Lock()
	t, ok := parsed[key]
	parsedMu.Unlock()
	if ok {
		return t, nil
	}
	var shared strings.Builder
	for _, f := range []string{"reduce.wgsl", "kv.wgsl", "mv_common.wgsl", "mm_dq.wgsl"} {
		src, err := readWGSL(f)
		if err != nil {
			return nil, err
		}
		shared.WriteString(src)
	}
	t, err := template.New(name).Funcs(funcs).Option("missingkey=error").Parse(text + shared.String())
	if err != nil {
		return nil, fmt.Errorf("shaders: template %s: %w", name, err)
	}
	parsedMu.Lock()
	parsed[key] = t
	parsedMu.Unlock()
	return t, nil
}

// genericDot8 is the matvec inner step for formats without a hand-written
// one: 8 consecutive elements of a row dotted with x, bounds-checked so f32,
// f16 and bf16 rows may have any length.
const genericDot8 = `
fn dot8(rb: u32, e0: u32, K: u32) -> f32 {
    var s = 0.0;
    for (var j = 0u; j < 8u; j++) {
        let e = e0 + j;
        if (e < K) {
            s += dq(rb, e) * x[e >> 2u][e & 3u];
        }
    }
    return s;
}
`

// renameMM renames the matmul's own staging helpers (mm_dq.wgsl) for a
// mixed-format QKV matmul's K and V copies, beside renameIdent.
var renameMM = regexp.MustCompile(`\b(w2|dq4|dqs|dsc|ldw4)\b`)

// renameIdent makes a second copy of the weight helpers, suffixed _u, that
// reads the SwiGLU up matrix through wword_u.
var (
	renameIdent = regexp.MustCompile(`\b(RAGGED|pk_c|pk_lead|pk_q|pk_hi|pk_s|wword|wvec4|rd8s?|rd16|rd32|rd4x|rdh|dq|dot8|udot|vdot|EPV|tbl4|scale3|iq4nl|IQ4NL[0-3]|row_base|scale_min_k4|tq1p|tq1t|BS|TS|IQ4NL)\b`)
)

// packedType reports whether format t has a packed layout.
func packedType(t gguf.GGMLType) bool {
	return hasLayout(t)
}

// vecType reports whether the matvecs bind a weight of format t as
// array<vec4<u32>>: packed formats, and q4_K, whose 144-byte blocks keep
// its quants 16-byte aligned in file order.
func vecType(t gguf.GGMLType, packed bool) bool {
	return packed && packedType(t) || t == gguf.TypeQ4_K
}

// weightCode returns the byte readers and format helpers for weight type t
// bound as bind (vec: as array<vec4<u32>>); a non-empty suffix renames
// every helper (and the word sources wword and wvec4) so a kernel can read
// several matrices of different formats. With Key.Packed, formats that have
// a packed layout get their packed helpers (dq/<type>p.wgsl).
func weightCode(t gguf.GGMLType, d tmplData, suffix, bind string, vec bool) (string, error) {
	file := t.String()
	packed := d.Packed && packedType(t)
	if packed {
		file += "p"
	}
	dq, err := readWGSL("dq/" + file + ".wgsl")
	if err != nil {
		return "", &KeyError{d.Key, "Weight", fmt.Sprintf("no kernel for weight type %s", t)}
	}
	if packed {
		dq = readerSource(dq, t, d.Weight, d.WeightK, d.WeightV)
		if _, planes := packPlanes[t]; planes {
			walk, err := readWGSL("dq/planes.wgsl")
			if err != nil {
				return "", err
			}
			dq = fmt.Sprintf("const RAGGED: bool = %t; // Key.Ragged: rows of 8m+4 blocks\n", d.Ragged) + walk + "\n" + dq
		}
	}
	w, err := readWGSL("weights.wgsl")
	if err != nil {
		return "", err
	}
	// wvec4(i): the i-th 16-byte vector of the weights, one load where the
	// binding is vec4-typed (the packed formats' aligned quant reads).
	vec4 := fmt.Sprintf("\nfn wvec4(i: u32) -> vec4<u32> {\n    return %s[i];\n}\n", bind)
	if !vec {
		vec4 = "\nfn wvec4(i: u32) -> vec4<u32> {\n    return vec4<u32>(wword(4u * i), wword(4u * i + 1u), wword(4u * i + 2u), wword(4u * i + 3u));\n}\n"
	}
	code := w + vec4 + "\n" + dq
	if d.Op == OpMatvec {
		code += genericDot8
	}
	if suffix != "" {
		code = renameIdent.ReplaceAllString(code, "${1}"+suffix)
	}
	return code, nil
}

func assemble(spec *opSpec, d tmplData) (string, error) {
	var sb strings.Builder
	fmt.Fprintf(&sb, "// webgguf kernel %s\n", d.Key)
	if d.F16 {
		sb.WriteString("enable f16;\n")
	}
	common, err := readWGSL("common.wgsl")
	if err != nil {
		return "", err
	}
	c, err := execTemplate("common", common, d)
	if err != nil {
		return "", err
	}
	sb.WriteString(c)
	if spec.weights {
		bits, err := readWGSL("bits.wgsl")
		if err != nil {
			return "", err
		}
		sb.WriteString(bits)
		type matrix struct {
			t            gguf.GGMLType
			suffix, bind string
			vec          bool
		}
		mats := []matrix{{d.Weight, "", "w", d.VecW}}
		if d.SwiGLU && d.Op != OpMatmul { // the matmul's wword picks the matrix
			mats = append(mats, matrix{d.Weight, "_u", "wu", d.VecW})
		}
		if d.Op == OpMatvecQKV {
			mats = append(mats, matrix{d.WeightK, "_k", "wk", d.VecK}, matrix{d.WeightV, "_v", "wv", d.VecV})
		}
		if d.MixedQKV {
			mats = append(mats, matrix{d.WeightK, "_k", "wk", false}, matrix{d.WeightV, "_v", "wv", false})
		}
		for _, m := range mats {
			wc, err := weightCode(m.t, d, m.suffix, m.bind, m.vec)
			if err != nil {
				return "", err
			}
			sb.WriteString(wc)
			if d.MixedQKV && m.suffix != "" {
				// The matmul's own staging reads (mm_dq.wgsl) of this matrix's
				// format; the Q matrix's come with matmul.wgsl.
				md := d
				md.Weight = m.t
				code, err := execTemplate("mm_dq_copy", `{{template "mm_dq" .}}`, md)
				if err != nil {
					return "", err
				}
				sb.WriteString(renameMM.ReplaceAllString(renameIdent.ReplaceAllString(code, "${1}"+m.suffix), "${1}"+m.suffix))
			}
		}
	}
	file := spec.file
	if spec.fileFor != nil {
		file = spec.fileFor(d.Key)
	}
	body, err := readWGSL("ops/" + file)
	if err != nil {
		return "", err
	}
	b, err := execTemplate(file, body, d)
	if err != nil {
		return "", err
	}
	sb.WriteString(b)
	return sb.String(), nil
}
