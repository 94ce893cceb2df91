package gguf

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"testing"
)

// sampleKV has one value of every GGUF type, arrays of each scalar type,
// and nested arrays, so round-trip tests cover the whole value encoding.
func sampleKV() []KV {
	return []KV{
		{"general.architecture", ValueOf("llama")},
		{"general.alignment", ValueOf(uint32(64))},
		{"t.u8", ValueOf(uint8(200))},
		{"t.i8", ValueOf(int8(-100))},
		{"t.u16", ValueOf(uint16(60000))},
		{"t.i16", ValueOf(int16(-30000))},
		{"t.u32", ValueOf(uint32(4000000000))},
		{"t.i32", ValueOf(int32(-2000000000))},
		{"t.f32", ValueOf(float32(3.25))},
		{"t.bool", ValueOf(true)},
		{"t.str", ValueOf("héllo\x00world")},
		{"t.u64", ValueOf(uint64(math.MaxUint64))},
		{"t.i64", ValueOf(int64(math.MinInt64))},
		{"t.f64", ValueOf(-1e300)},
		{"llama.block_count", ValueOf(uint32(2))},
		{"a.u8", ValueOf([]uint8{1, 2, 255})},
		{"a.i8", ValueOf([]int8{-1, 2})},
		{"a.u16", ValueOf([]uint16{1, 65535})},
		{"a.i16", ValueOf([]int16{-2, 3})},
		{"a.u32", ValueOf([]uint32{7, 8, 9})},
		{"a.i32", ValueOf([]int32{-7, 8})},
		{"a.f32", ValueOf([]float32{0.5, -1.5, float32(math.Inf(1))})},
		{"a.bool", ValueOf([]bool{true, false, true})},
		{"a.str", ValueOf([]string{"a", "", "ccc"})},
		{"a.u64", ValueOf([]uint64{1 << 40})},
		{"a.i64", ValueOf([]int64{-1 << 40, 5})},
		{"a.f64", ValueOf([]float64{1.5, -2})},
		{"a.empty", ValueOf([]string{})},
		{"a.nested", ValueOf([]Value{ValueOf([]int32{1, 2}), ValueOf([]int32{}), ValueOf([]Value{ValueOf([]string{"x"})})})},
	}
}

// sampleTensors returns n-element-per-row tensors of several types filled
// with seeded random bytes (never all zero).
func sampleTensors(seed uint64) []TensorData {
	r := rand.New(rand.NewPCG(seed, 1))
	mk := func(name string, t GGMLType, ne ...uint64) TensorData {
		td := TensorData{Name: name, Type: t, Ne: ne}
		n := int64(1)
		for _, d := range ne[1:] {
			n *= int64(d)
		}
		rb, _ := t.RowBytes(int64(ne[0]))
		td.Data = make([]byte, rb*n)
		for i := range td.Data {
			td.Data[i] = byte(r.Uint32()) | 1
		}
		return td
	}
	return []TensorData{
		mk("token_embd.weight", TypeQ8_0, 64, 3),
		mk("output_norm.weight", TypeF32, 5),
		mk("blk.0.attn_q.weight", TypeQ4_K, 256, 2),
		mk("blk.0.ffn.weight", TypeF16, 3, 1, 2, 1),
	}
}

// sampleFile writes sampleKV and sampleTensors to bytes.
func sampleFile(t testing.TB) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, sampleKV(), sampleTensors(1), 0); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// readFixture returns the bytes of testdata/models/name.
func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile("../testdata/models/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
