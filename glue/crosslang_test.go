package glue

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
)

type crossField struct {
	JS    string `json:"js"`
	Wire  string `json:"wire"`
	Value any    `json:"value"`
}

type crossGood struct {
	Name   string       `json:"name"`
	Type   string       `json:"type"`
	ID     uint32       `json:"id"`
	Kind   Kind         `json:"kind"`
	Fields []crossField `json:"fields"`
	Future bool         `json:"future"` // has fields this schema does not know
	msg    any
	frame  []byte
}

type crossBad struct {
	Name   string    `json:"name"`
	Code   ErrorCode `json:"code"`
	Field  string    `json:"field"`
	Offset int       `json:"offset"`
}

// fillRandom sets every field of a message to random, non-zero data.
func fillRandom(r *rand.Rand, info *MessageInfo, v reflect.Value) {
	for _, f := range info.Fields {
		fv := v.Field(f.index)
		n := 1 + r.IntN(6)
		switch f.Wire {
		case WireBool:
			fv.SetBool(true)
		case WireI32, WireI64:
			fv.SetInt(-1 - int64(r.Uint32()))
			if f.Wire == WireI64 {
				fv.SetInt(-int64(r.Uint64() >> 2))
			}
		case WireU32:
			fv.SetUint(uint64(r.Uint32() | 1))
		case WireF32, WireF64:
			fv.SetFloat(r.NormFloat64() + 0.5)
			if f.Wire == WireF32 {
				fv.SetFloat(float64(float32(fv.Float())))
			}
		case WireString:
			fv.SetString(fmt.Sprintf("%s ✓ %d é", f.Name, r.IntN(1000)))
		case WireBytes:
			fv.SetBytes(randBytes(r, 1+r.IntN(100)))
		default:
			s := reflect.MakeSlice(fv.Type(), n, n)
			for i := range n {
				e := s.Index(i)
				switch f.Wire.Elem() {
				case WireBool:
					e.SetBool(r.IntN(2) == 0)
				case WireI32, WireI64:
					e.SetInt(int64(r.Uint64()) >> (32 * (1 - (fv.Type().Elem().Bits() / 64))))
				case WireU32:
					e.SetUint(uint64(r.Uint32()))
				case WireF32:
					e.SetFloat(float64(float32(r.NormFloat64())))
				case WireF64:
					e.SetFloat(r.NormFloat64() * 1e10)
				case WireString:
					e.SetString([]string{"", "abc", "日本語", "\U0001F600"}[r.IntN(4)])
				case WireBytes:
					e.SetBytes(randBytes(r, 1+r.IntN(9)))
				}
			}
			fv.Set(s)
		}
	}
}

// jsonValue renders a Go field value in the typed JSON form crosslang.mjs reads.
func jsonValue(w WireType, v reflect.Value) any {
	one := func(e reflect.Value) any {
		switch w.Elem() {
		case WireI64:
			return strconv.FormatInt(e.Int(), 10)
		case WireF32:
			return strconv.FormatUint(uint64(math.Float32bits(float32(e.Float()))), 16)
		case WireF64:
			return strconv.FormatUint(math.Float64bits(e.Float()), 16)
		case WireBytes:
			return base64.StdEncoding.EncodeToString(e.Bytes())
		}
		return e.Interface()
	}
	if !w.IsArray() {
		return one(v)
	}
	out := make([]any, v.Len())
	for i := range out {
		out[i] = one(v.Index(i))
	}
	return out
}

// TestCrossLanguage encodes every message type in Go and has Node decode it
// field by field, then has Node encode the same values for Go to decode and
// compare, byte for byte and value for value. Malformed frames must give the
// same error code, field and offset on both sides.
func TestCrossLanguage(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is required for the cross-language codec test (Node.js ≥ 20): ", err)
	}
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(11, 12))
	var good []*crossGood
	for _, info := range Schema() {
		for rep := range 3 {
			p := reflect.New(info.typ)
			if rep > 0 { // rep 0 is the all-zero message: every field omitted
				fillRandom(r, byID[info.ID], p.Elem())
			}
			c := &crossGood{Name: fmt.Sprintf("%s_%d", info.Name, rep), Type: info.Name, ID: r.Uint32(), Kind: Kind(1 + rep%5), msg: p.Interface()}
			for _, f := range info.Fields {
				c.Fields = append(c.Fields, crossField{JS: f.JSName, Wire: f.Wire.String(), Value: jsonValue(f.Wire, p.Elem().Field(f.index))})
			}
			if c.frame, err = Encode(c.Kind, c.ID, c.msg); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, c.Name+".bin"), c.frame, 0o644); err != nil {
				t.Fatal(err)
			}
			good = append(good, c)
		}
	}
	// frames from a newer peer: known fields plus unknown ones of every wire type
	for rep := range 3 {
		want := randomAllTypes(r)
		frame, err := Encode(KindResponse, uint32(rep+1), want)
		if err != nil {
			t.Fatal(err)
		}
		if frame, err = appendFutureFields(frame); err != nil {
			t.Fatal(err)
		}
		info := byID[30]
		c := &crossGood{Name: fmt.Sprintf("future_%d", rep), Type: info.Name, ID: uint32(rep + 1), Kind: KindResponse, Future: true, msg: want, frame: frame}
		for _, f := range info.Fields {
			c.Fields = append(c.Fields, crossField{JS: f.JSName, Wire: f.Wire.String(), Value: jsonValue(f.Wire, reflect.ValueOf(want).Elem().Field(f.index))})
		}
		if err := os.WriteFile(filepath.Join(dir, c.Name+".bin"), frame, 0o644); err != nil {
			t.Fatal(err)
		}
		good = append(good, c)
	}
	// malformed frames: the hand-made cases plus every truncation of a full AllTypes frame
	var bad []crossBad
	badFrames := map[string][]byte{}
	full, _ := Encode(KindEvent, 5, randomAllTypes(r))
	for cut := 0; cut < len(full); cut += 1 + cut/64 {
		f := append([]byte(nil), full[:cut]...)
		if cut >= HeaderSize {
			binary.LittleEndian.PutUint32(f[16:], uint32(cut))
		}
		badFrames[fmt.Sprintf("cut_%d", cut)] = f
	}
	for i, flip := range []int{0, 4, 6, 8, 16, 22, 24, 30, 40, 60, 100} {
		f := append([]byte(nil), full...)
		f[flip] ^= 0xC3
		badFrames[fmt.Sprintf("flip_%d_%d", i, flip)] = f
	}
	for name, f := range badFrames {
		_, _, err := Decode(f)
		var de *DecodeError
		if err == nil {
			continue // a cut on a field boundary is a valid shorter frame
		}
		if !errors.As(err, &de) {
			t.Fatalf("%s: untyped %v", name, err)
		}
		bad = append(bad, crossBad{Name: name, Code: de.Code, Field: de.Field, Offset: de.Offset})
		if err := os.WriteFile(filepath.Join(dir, name+".bin"), f, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases, _ := json.Marshal(map[string]any{"good": good, "bad": bad})
	if err := os.WriteFile(filepath.Join(dir, "cases.json"), cases, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "../jsbindings/scripts/crosslang.mjs", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	var res struct {
		Good []struct {
			Name   string
			Errors []string
		}
		Bad []struct {
			Name, Code, Field, Message, Untyped string
			Offset                              int
			Accepted                            bool
		}
	}
	raw, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Good) != len(good) || len(res.Bad) != len(bad) {
		t.Fatalf("node checked %d/%d good and %d/%d bad frames", len(res.Good), len(good), len(res.Bad), len(bad))
	}
	for i, g := range res.Good {
		c := good[i]
		for _, e := range g.Errors {
			t.Errorf("Go→JS %s: %s", c.Name, e)
		}
		jsFrame, err := os.ReadFile(filepath.Join(dir, c.Name+".js.bin"))
		if err != nil {
			t.Errorf("JS→Go %s: %v", c.Name, err)
			continue
		}
		if !c.Future && !bytes.Equal(jsFrame, c.frame) { // JS drops the unknown fields of future frames
			t.Errorf("JS→Go %s: JS encoding differs from Go's\n js % x\n go % x", c.Name, jsFrame, c.frame)
		}
		h, msg, err := Decode(jsFrame)
		if err != nil {
			t.Errorf("JS→Go %s: %v", c.Name, err)
			continue
		}
		if h.ID != c.ID || h.Kind != c.Kind || !reflect.DeepEqual(msg, c.msg) {
			t.Errorf("JS→Go %s: got %+v %+v want %+v", c.Name, h, msg, c.msg)
		}
	}
	for i, b := range res.Bad {
		w := bad[i]
		if b.Accepted || b.Untyped != "" || b.Code != string(w.Code) || b.Field != w.Field || b.Offset != w.Offset {
			t.Errorf("malformed %s: JS %+v, Go code %s field %q offset %d", w.Name, b, w.Code, w.Field, w.Offset)
		}
	}
	t.Logf("%d frames Go→JS→Go, %d malformed frames with matching errors", len(good), len(bad))
}

// appendFutureFields appends fields of every wire type under ids AllTypes
// does not know (futureFields from codec_test.go) to an AllTypes frame.
func appendFutureFields(frame []byte) ([]byte, error) {
	fut := &futureFields{A: true, B: -5, C: 9, D: -1 << 40, E: 1.5, F: -2.25, G: "new ✓", H: []byte{1, 2, 3},
		I: []bool{true, false}, J: []int32{-1}, K: []uint32{1, 2, 3}, L: []int64{-7}, M: []float32{0.5},
		N: []float64{1e-300}, O: []string{"a", "", "ccc"}, P: [][]byte{{9}, nil, {8, 7}}}
	info, err := describe(reflect.TypeOf(*fut))
	if err != nil {
		return nil, err
	}
	v := reflect.ValueOf(fut).Elem()
	for i := range info.Fields {
		f := &info.Fields[i]
		if f.ID < 100 {
			continue
		}
		if frame, err = appendField(frame, 0, f, v.Field(f.index)); err != nil {
			return nil, err
		}
	}
	binary.LittleEndian.PutUint32(frame[16:], uint32(len(frame)))
	return frame, nil
}
