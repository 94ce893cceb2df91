package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/shaders"
)

// attnVariantSpec is one prefill attention kernel of bench-kernels'
// -attn-prefill-kernels: "tiled:WG[:TK]" is the register-tiled kernel
// (Key.Coop, TK 0: shaders.AttnTiledKeys), "query:P:WG" the per-query one
// with P threads a query (Key.SplitK; P 1 the one-thread kernel).
type attnVariantSpec struct {
	name         string
	tiled        bool
	wg, tk, part int
}

func parseAttnVariants(s string) ([]attnVariantSpec, error) {
	var out []attnVariantSpec
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		fs := strings.Split(f, ":")
		var n []int
		for _, x := range fs[1:] {
			v, err := strconv.Atoi(x)
			if err != nil {
				return nil, fmt.Errorf("-attn-prefill-kernels: %q: %w", f, err)
			}
			n = append(n, v)
		}
		switch {
		case fs[0] == "tiled" && (len(n) == 1 || len(n) == 2):
			v := attnVariantSpec{name: f, tiled: true, wg: n[0]}
			if len(n) == 2 {
				v.tk = n[1]
			}
			out = append(out, v)
		case fs[0] == "query" && len(n) == 2:
			out = append(out, attnVariantSpec{name: f, part: n[0], wg: n[1]})
		default:
			return nil, fmt.Errorf("-attn-prefill-kernels: %q: want tiled:WG[:TK] or query:P:WG", f)
		}
	}
	return out, nil
}

// attnPrefillBench is bench-kernels' prefill attention benchmark: each
// shape "MxPos0xHxHkvxD" (M queries after Pos0 cached positions, H query
// heads sharing Hkv KV heads of size D) on each kernel variant, with a
// kv cache, an optional sliding window and soft-cap (Gemma 3 1B's local
// layers: 512x0x4x1x256 with -attn-prefill-window 512).
func (b *bencher) attnPrefillBench(ctx context.Context, w io.Writer, shapes, kernels string, kv gguf.GGMLType, window int, softcap float64) error {
	variants, err := parseAttnVariants(kernels)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	defer tw.Flush()
	fmt.Fprintln(tw, "attn_prefill\tM x Pos0 x H x Hkv x D\tkv\twindow\tkernel\tTK\twall us\tGPU us\t")
	for _, s := range strings.Split(shapes, ",") {
		var d []int
		for _, x := range strings.Split(strings.TrimSpace(s), "x") {
			v, err := strconv.Atoi(x)
			if err != nil || v < 0 || v > 1<<20 {
				return fmt.Errorf("-attn-prefill: shape %q: size %q", s, x)
			}
			d = append(d, v)
		}
		if len(d) != 5 {
			return fmt.Errorf("-attn-prefill: shape %q: want MxPos0xHxHkvxD", s)
		}
		M, pos0, H, Hkv, D := d[0], d[1], d[2], d[3], d[4]
		if M == 0 || H == 0 || Hkv == 0 || H%Hkv != 0 || D%4 != 0 {
			return fmt.Errorf("-attn-prefill %q: M, H, Hkv > 0, H a multiple of Hkv and D of 4", s)
		}
		ctxLen := pos0 + M
		q := f32Data(b.r, M*H*D)
		kc, vc := b.attnCache(kv, Hkv*ctxLen*D), b.attnCache(kv, Hkv*ctxLen*D)
		out := make([]byte, 4*M*H*D)
		for _, v := range variants {
			key := shaders.Key{Op: shaders.OpAttnPrefill, KV: kv, HeadDim: D, WG: v.wg, Window: window, Softcap: float32(softcap)}
			if v.tiled {
				key.Coop, key.TK = true, v.tk
			} else if v.part > 1 {
				key.SplitK = v.part
			}
			k, err := shaders.Build(key)
			if err != nil {
				fmt.Fprintf(tw, "attn_prefill\t%s\t%s\t%d\t%s\t\t%v\t\t\n", s, kv, window, v.name, err)
				continue
			}
			pt := part{
				params: shaders.AttnPrefillParams{M: uint32(M), Heads: uint32(H), KVHeads: uint32(Hkv), Pos0: uint32(pos0), Ctx: uint32(ctxLen),
					Scale: float32(1 / math.Sqrt(float64(D)))},
				shape: shaders.Shape{M: M, Heads: H},
				w:     q,
				ySize: uint64(len(out)),
			}
			wall, gpu, err := b.run(ctx, key, []part{pt}, [][]byte{kc, vc, out}, 2)
			if err != nil {
				fmt.Fprintf(tw, "attn_prefill\t%s\t%s\t%d\t%s\t\t%v\t\t\n", s, kv, window, v.name, err)
				continue
			}
			tk := "-"
			if k.Key.Coop {
				tk = strconv.Itoa(shaders.AttnTiledKeys(D, k.Key.WG))
				if k.Key.TK > 0 {
					tk = strconv.Itoa(k.Key.TK)
				}
			}
			fmt.Fprintf(tw, "attn_prefill\t%s\t%s\t%d\t%s\t%s\t%.1f\t%s\t\n", s, kv, window, v.name, tk, wall.Seconds()*1e6, fmtGPU(gpu))
		}
	}
	return nil
}

// attnCache is n random cache elements of type kv (f32 or f16) in [-1, 1).
func (b *bencher) attnCache(kv gguf.GGMLType, n int) []byte {
	if kv != gguf.TypeF16 {
		return f32Data(b.r, n)
	}
	out := make([]byte, 2*n)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint16(out[2*i:], gguf.F32ToF16(float32(b.r.Float64()*2-1)))
	}
	return out
}
