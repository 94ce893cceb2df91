package glue

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// FuzzDecode feeds arbitrary bytes to the decoder. It must never panic or
// hang and must return only *DecodeError with an offset inside the frame.
//
// What the codec guarantees for an accepted frame, and what is checked:
// Decode is lenient (it skips unknown fields, accepts any field order, reads
// any non-zero bool byte as true, ignores padding bytes and flags, and keeps
// fields sent at their zero value), while Encode is canonical (schema order,
// zero fields and empty arrays omitted, zero padding). So the original bytes
// need not come back, but:
//   - encode(decode(b)) succeeds, with b's kind, id and type;
//   - it decodes to a message equal to decode(b), field by field (floats by
//     bit pattern, so NaN payloads and -0 count; an empty array or byte
//     string equals a missing one: the encoder omits both);
//   - encoding that message again gives the same bytes (the canonical form
//     is a fixed point).
//
// The seed corpus holds a valid frame of every message type of the schema,
// with realistic and extreme values, and truncated and bit-flipped copies
// of them (seedFrames); testdata/fuzz/FuzzDecode holds what earlier runs
// found interesting.
func FuzzDecode(f *testing.F) {
	for _, b := range seedFrames() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		h, msg, err := Decode(b)
		if err != nil {
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("untyped error %T %v", err, err)
			}
			if de.Offset < 0 || de.Offset > len(b) {
				t.Fatalf("offset %d outside frame of %d bytes", de.Offset, len(b))
			}
			return
		}
		if id, ok := TypeID(msg); !ok || id != h.Type {
			t.Fatalf("header type %d decoded as %T", h.Type, msg)
		}
		again, err := Encode(h.Kind, h.ID, msg)
		if err != nil {
			t.Fatalf("re-encode of an accepted frame: %v", err)
		}
		h2, back, err := Decode(again)
		if err != nil {
			t.Fatalf("decode of re-encoded frame: %v", err)
		}
		if h2.Kind != h.Kind || h2.ID != h.ID || h2.Type != h.Type || int(h2.Length) != len(again) {
			t.Fatalf("re-encode changed the header: %+v → %+v (%d bytes)", h, h2, len(again))
		}
		if d := diffMessage(msg, back); d != "" {
			t.Fatalf("re-encode changed the message: %s\n%+v\n%+v", d, msg, back)
		}
		third, err := Encode(h.Kind, h.ID, back)
		if err != nil || !bytes.Equal(third, again) {
			t.Fatalf("canonical encoding is not a fixed point (err %v):\n%x\n%x", err, again, third)
		}
	})
}

// diffMessage compares two messages of the same registered type field by
// field: floats by their bits, empty slices equal to nil. It returns ""
// when they are equal, else the first differing field.
func diffMessage(a, b any) string {
	va, vb := reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem()
	if va.Type() != vb.Type() {
		return fmt.Sprintf("types %v and %v", va.Type(), vb.Type())
	}
	info := byType[va.Type()]
	for _, f := range info.Fields {
		x, y := va.Field(f.index), vb.Field(f.index)
		if !sameValue(f.Wire, x, y) {
			return info.Name + "." + f.Name
		}
	}
	return ""
}

func sameValue(w WireType, x, y reflect.Value) bool {
	if !w.IsArray() {
		switch w {
		case WireF32:
			return math.Float32bits(float32(x.Float())) == math.Float32bits(float32(y.Float()))
		case WireF64:
			return math.Float64bits(x.Float()) == math.Float64bits(y.Float())
		case WireBytes:
			return bytes.Equal(x.Bytes(), y.Bytes())
		}
		return x.Equal(y)
	}
	if x.Len() != y.Len() {
		return false
	}
	for i := range x.Len() {
		if !sameValue(w.Elem(), x.Index(i), y.Index(i)) {
			return false
		}
	}
	return true
}

// TestFuzzSeedsCoverSchema: the seed corpus has a frame of every message
// type (a message added to the schema is seeded without more code).
func TestFuzzSeedsCoverSchema(t *testing.T) {
	seen := map[uint32]int{}
	for _, b := range seedFrames() {
		if h, _, err := Decode(b); err == nil {
			seen[h.Type]++
		}
	}
	for _, m := range Schema() {
		if seen[m.ID] < 3 {
			t.Errorf("%s: %d decodable seed frames, want ≥ 3", m.Name, seen[m.ID])
		}
	}
}

// seedFrames returns FuzzDecode's seed corpus: for every message type of the
// schema, frames of realistic requests and responses (realisticMessages),
// of every field at its extreme (long multi-byte strings, min and max
// integers, NaN, ±Inf and -0 floats, arrays of empty elements) and of the
// zero message; each under every frame kind in turn, followed by truncated
// copies (with the header's length patched, so the cut lands inside a
// field, and unpatched) and bit-flipped copies.
func seedFrames() [][]byte {
	var msgs []any
	msgs = append(msgs, realisticMessages()...)
	for _, m := range Schema() {
		for variant := range 3 {
			p := reflect.New(m.typ)
			fillExtreme(&m, p.Elem(), variant)
			msgs = append(msgs, p.Interface())
		}
	}
	r := rand.New(rand.NewPCG(7, 8))
	for range 4 {
		msgs = append(msgs, randomAllTypes(r))
	}
	var out [][]byte
	for i, m := range msgs {
		kind := Kind(1 + i%5)
		id := []uint32{1, 0, math.MaxUint32, 42}[i%4]
		b, err := Encode(kind, id, m)
		if err != nil {
			panic(fmt.Sprintf("seed %d (%T): %v", i, m, err))
		}
		out = append(out, b)
		if len(b) <= HeaderSize {
			continue
		}
		// A cut inside the fields, with the length patched to match, and
		// one where the header still claims the whole frame.
		for _, cut := range []int{HeaderSize + 1, HeaderSize + (len(b)-HeaderSize)/2, len(b) - 1} {
			c := append([]byte(nil), b[:cut]...)
			binary.LittleEndian.PutUint32(c[16:], uint32(cut))
			out = append(out, c)
		}
		out = append(out, append([]byte(nil), b[:len(b)-1]...))
		// Bit flips: in the header's type id, in the first field header's
		// wire type, and at a random byte.
		for _, at := range []int{8, HeaderSize + 2, HeaderSize + r.IntN(len(b)-HeaderSize)} {
			c := append([]byte(nil), b...)
			c[at] ^= 1 << r.IntN(8)
			out = append(out, c)
		}
	}
	return out
}

// fillExtreme sets every field of a message to an extreme value: variant 0
// the maximum (long strings, max ints, NaN), 1 the minimum (min ints, -Inf,
// arrays of empty elements), 2 the zero message (every field omitted).
func fillExtreme(info *MessageInfo, v reflect.Value, variant int) {
	if variant == 2 {
		return
	}
	long := strings.Repeat("héllo, wörld ✓ 日本語 \U0001F600 ", 150) // ~6 KB of 1-4 byte runes
	for _, f := range info.Fields {
		fv := v.Field(f.index)
		switch f.Wire {
		case WireBool:
			fv.SetBool(true)
		case WireI32:
			fv.SetInt([]int64{math.MaxInt32, math.MinInt32}[variant])
		case WireI64:
			fv.SetInt([]int64{math.MaxInt64, math.MinInt64}[variant])
		case WireU32:
			fv.SetUint([]uint64{math.MaxUint32, 1}[variant])
		case WireF32, WireF64:
			fv.SetFloat([]float64{math.NaN(), math.Inf(-1)}[variant])
		case WireString:
			fv.SetString([]string{long, "\x00"}[variant])
		case WireBytes:
			fv.SetBytes([][]byte{bytes.Repeat([]byte{0xff, 0, 0x80}, 3000), {0}}[variant])
		default:
			n := []int{300, 3}[variant]
			s := reflect.MakeSlice(fv.Type(), n, n)
			for i := range n {
				e := s.Index(i)
				switch f.Wire.Elem() {
				case WireBool:
					e.SetBool(i%2 == 0)
				case WireI32:
					e.SetInt([]int64{math.MaxInt32, math.MinInt32, -1, 0}[i%4])
				case WireI64:
					e.SetInt([]int64{math.MaxInt64, math.MinInt64, -1, 0}[i%4])
				case WireU32:
					e.SetUint([]uint64{math.MaxUint32, 0, 1}[i%3])
				case WireF32:
					e.SetFloat(float64([]float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Copysign(0, -1)), math.MaxFloat32, math.SmallestNonzeroFloat32}[i%5]))
				case WireF64:
					e.SetFloat([]float64{math.NaN(), math.Inf(-1), math.Copysign(0, -1), math.MaxFloat64, math.SmallestNonzeroFloat64}[i%5])
				case WireString:
					if variant == 0 && i%2 == 0 {
						e.SetString(string([]rune(long)[:16*(i%7)]))
					}
				case WireBytes:
					if variant == 0 {
						e.SetBytes(bytes.Repeat([]byte{byte(i)}, i%17))
					}
				}
			}
			fv.Set(s)
		}
	}
}

// realisticMessages are messages as the page and the worker really send
// them: the engine's requests with the values the npm package fills in,
// and their responses and events.
func realisticMessages() []any {
	nan := float32(math.NaN())
	ggufHead := append([]byte("GGUF\x03\x00\x00\x00"), make([]byte, 16)...)
	return []any{
		&ModelLoadRequest{Data: ggufHead, Name: "tiny-llama-q8_0.gguf", NCtx: 4096, Backend: "auto"},
		&ModelLoadRequest{Key: "Llama-3.2-1B-Instruct-Q4_0.gguf-3f2a9c0d11e4", Backend: "webgpu"},
		&ModelLoadRequest{URL: "https://huggingface.co/bartowski/Llama-3.2-1B-Instruct-GGUF/resolve/main/Llama-3.2-1B-Instruct-Q4_0.gguf", NCtx: math.MaxUint32, Backend: "cpu"},
		&ModelLoadRequest{BlobID: "blob-1", Name: strings.Repeat("名", 300)},
		&ModelLoadRequest{Data: ggufHead, Key: "k", URL: "u", BlobID: "b"}, // more than one source
		&InfoRequest{},
		&TokenizeRequest{Text: "Hello, world! <|im_start|>user\nWhat is 2+2?<|im_end|>", AddSpecial: true, ParseSpecial: true},
		&TokenizeRequest{Text: strings.Repeat("The quick brown fox jumps over the lazy dog. ", 200)},
		&DetokenizeRequest{Ids: []int32{1, 15043, 29892, 3186, 29991}, Special: true},
		&DetokenizeRequest{Ids: []int32{-1, math.MaxInt32, math.MinInt32}},
		&ChatTemplateRequest{Roles: []string{"system", "user", "assistant", "user"}, Contents: []string{"You are helpful.", "Hi!", "Hello! How can I help?", "Tell me a joke."}, AddGenerationPrompt: true},
		&ChatTemplateRequest{Roles: []string{"user"}, Contents: []string{"hi"}, Template: "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}\n{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}"},
		&ChatTemplateRequest{Roles: []string{"user", ""}, Contents: []string{"a"}}, // mismatched, empty role
		&GenerateRequest{Prompt: "Once upon a time", MaxTokens: 128, Temperature: 0.8, TopK: 40, TopP: 0.95, MinP: 0.05, RepeatPenalty: 1.1, PenaltyLastN: 64, Seed: 42, Stop: []string{"\n\n", "</s>"}},
		&GenerateRequest{Chat: true, Roles: []string{"system", "user"}, Contents: []string{"Be brief.", "What is GGUF?"}, MaxTokens: -1, Temperature: 0, TopK: 1, IgnoreEOS: true},
		&GenerateRequest{Prompt: "x", Temperature: nan, TopP: float32(math.Inf(1)), PenaltyLastN: math.MinInt32, TopK: math.MaxInt32, Stop: make([]string, 17)},
		&GenerateRequest{Chat: true}, // a chat without messages
		&UnloadRequest{},
		&OpfsDownloadRequest{ShardURLs: []string{"https://example.com/m-00001-of-00002.gguf", "https://example.com/m-00002-of-00002.gguf"}, SHA256: []string{strings.Repeat("ab", 32), strings.Repeat("cd", 32)}, Parallel: 3},
		&OpfsLoadRequest{Key: "m.gguf-0123456789ab", Source: "stream", ChunkBytes: 1 << 20, Verify: "token_embd.weight"},
		&OpfsFirstTokenRequest{Key: "m.gguf-0123456789ab", Prompt: []int32{1, 450, 4996}, NCtx: 512},
		&OpfsDeleteRequest{Key: "m.gguf-0123456789ab"},
		&OpfsEstimateRequest{Persist: true},
		&EchoRequest{Data: []byte{1}, Text: "x", DelayMs: 5},
		&StreamRequest{Count: 10, IntervalMs: 1, ChunkBytes: 4096},
		&CrashRequest{Mode: "panic"},
		&Cancel{Reason: "AbortSignal: the user stopped generation"},
		&ModelInfo{Loaded: true, Name: "tiny", Arch: "llama", Backend: "webgpu", NCtx: 4096, NCtxTrain: 131072, NVocab: 128256, NLayer: 16, NEmbd: 2048,
			FileBytes: 770_000_000, BackendBytes: 900_000_000, ChatTemplate: "{{ bos_token }}{% for m in messages %}{{ m.content }}{% endfor %}", Metadata: `{"general.architecture":"llama"}`, LoadMs: 1234.5, BOS: 128000, EOS: -1, Source: "cache", WasmBytes: 1 << 26, WasmGrowth: -1},
		&Tokens{Ids: []int32{128000, 9906, 11, 1917, 0}},
		&Text{Text: "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"},
		&TokenEvent{Id: 1917, Text: "\uFFFD"},
		&GenerateResponse{Text: "Once upon a time there was", Ids: []int32{2, 3, 4}, Finish: "length", PromptTokens: 5, CompletionTokens: 3, CachedTokens: 4, PromptMs: 12.5, GenMs: math.Inf(1)},
		&UnloadResponse{Existed: true},
		&Error{Kind: "invalid-argument", Message: "temperature must be a finite number"},
		&Error{Kind: "bad-file", Message: "the file is not a usable GGUF model", Cause: "gguf: bad magic", CauseKind: "internal"},
		&Progress{Stage: "upload", Done: 1 << 30, Total: 1 << 31},
		&Log{Level: -4, Message: "load phases (ms): open 1.2 tokenizer 3.4"},
		&OpfsProgress{Stage: "download", Key: "k", Shard: 1, Shards: 2, Done: 10, Total: 100, AllDone: 10, AllTotal: 200, BytesPerSec: math.NaN()},
		&HelloResponse{Protocol: Version, Engine: "webgguf", Requests: []uint32{16, 24, 64, 66, 67, 69, 71, 72, 75}},
		&StatsResponse{InFlight: -1, Handled: math.MaxInt64, NumGC: 3},
	}
}
