package main

import (
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/cogentcore/webgpu/wgpu"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/shaders"
	"github.com/webgguf/webgguf/webgpu"
)

func init() {
	commands["bench-kernels"] = command{
		summary: "measure matvec GB/s per weight format and prefill matmul GFLOP/s (native GPU)",
		run:     runBenchKernels,
	}
}

// benchShape is one matvec problem: N rows of K weights.
type benchShape struct{ N, K int }

func runBenchKernels(args []string) error {
	fs := flag.NewFlagSet("bench-kernels", flag.ContinueOnError)
	formats := fs.String("formats", "all", "comma-separated weight formats, or all")
	shapesFlag := fs.String("shapes", "2048x8192,8192x2048,128256x2048", "matvec shapes NxK (N rows of K weights)")
	mm := fs.String("matmul", "512x2048x8192", "prefill matmul MxKxN (M tokens, K inputs, N outputs); empty to skip")
	mmTiles := fs.String("matmul-tiles", "64x64x16,128x128x8,128x64x16,64x128x16", "matmul tiles TMxTNxTK[d][s] to try (d: double-buffered, Key.DB; s: x read as scalars, not Key.XVec's vec4s as the runtime does where K allows); the fastest is reported (-v: every one)")
	mmFormats := fs.String("matmul-formats", "f16,q4_0,q8_0,q4_K", "weight formats for the matmul benchmark, or all")
	iters := fs.Int("iters", 50, "dispatches per timed tape")
	wg := fs.Int("wg", 0, "matvec workgroup size (0: kernel default)")
	rows := fs.Int("rows", 0, "matvec rows per workgroup (0: kernel default)")
	rpt := fs.Int("rpt", 0, "matvec rows per thread (0: kernel default)")
	sweep := fs.String("sweep", "64:8:4,32:4:4,64:4:2,32:8:8,128:8:2,128:16:4,256:16:4,256:8:2,128:4:1,256:4:1", "matvec configs WG:Rows:RPT[:XU],... (XU: x units staged per barrier round, 0 or absent for the default) to try per format and shape; the fastest is reported; empty to use -wg/-rows/-rpt")
	norm := fs.Bool("norm", false, "time the matvec with the RMSNorm of x fused (Key.Norm), as the decode lm head and most decode matvecs run")
	swiglu := fs.Bool("swiglu", false, "time the SwiGLU matvec (gate and up matrices of the shape; the up matrix is not rotated, so it may sit in L2) instead of the plain one")
	verbose := fs.Bool("v", false, "print every -sweep configuration's GPU time, not only the fastest")
	packed := fs.Bool("packed", true, "also measure the packed layout (shaders.Pack) of formats that have one, as rows \"<format> packed\"")
	ggmlLayout := fs.Bool("ggml-layout", true, "with -packed, also measure the ggml block order of formats that have a packed layout")
	minBytes := fs.Int64("rotate-bytes", 512<<20, "rotate through weight copies totalling at least this many bytes, so the GPU's L2 cache cannot serve repeats")
	disable := fs.String("disable-features", "", "comma-separated WebGPU features not to request (shader-f16, subgroups, timestamp-query)")
	wgpuLog := fs.Bool("wgpu-log", false, "print wgpu-native's own log (warnings and up) to stderr")
	attnPrefill := fs.String("attn-prefill", "", "prefill attention shapes MxPos0xHxHkvxD,... (M queries after Pos0 cached positions, H query heads on Hkv KV heads of size D; Gemma 3 1B: 512x0x4x1x256); when set, only the prefill attention is measured")
	attnPrefillKernels := fs.String("attn-prefill-kernels", "tiled:128,tiled:64,tiled:256,tiled:128:4,query:2:128,query:4:128", "with -attn-prefill: kernels tiled:WG[:TK] (register-tiled, Key.Coop; TK 0 or absent: the most that fit) and query:P:WG (P threads a query, Key.SplitK)")
	attnPrefillKV := fs.String("attn-prefill-kv", "f16", "with -attn-prefill: KV cache type, f16 or f32")
	attnPrefillWindow := fs.Int("attn-prefill-window", 0, "with -attn-prefill: sliding window (Key.Window; 0: none; Gemma 3: 512)")
	attnPrefillCap := fs.Float64("attn-prefill-softcap", 0, "with -attn-prefill: score soft-cap (Key.Softcap; 0: none)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *wgpuLog {
		wgpu.SetLogLevel(wgpu.LogLevelInfo)
	}
	opt := webgpu.Options{PowerPreference: webgpu.PowerHigh}
	for _, f := range strings.Split(*disable, ",") {
		if f = strings.TrimSpace(f); f != "" {
			opt.DisableFeatures = append(opt.DisableFeatures, webgpu.Feature(f))
		}
	}
	types, err := parseFormats(*formats)
	if err != nil {
		return err
	}
	mmTypes, err := parseFormats(*mmFormats)
	if err != nil {
		return err
	}
	var configs []mvConfig
	if *sweep != "" {
		for _, c := range strings.Split(*sweep, ",") {
			xu := 0
			if strings.Count(c, ":") == 3 {
				i := strings.LastIndex(c, ":")
				if xu, err = strconv.Atoi(c[i+1:]); err != nil {
					return fmt.Errorf("-sweep: XU of %q: %w", c, err)
				}
				c = c[:i]
			}
			d, err := parseDims(strings.ReplaceAll(c, ":", "x"), 3)
			if err != nil {
				return fmt.Errorf("-sweep: %w", err)
			}
			configs = append(configs, mvConfig{d[0], d[1], d[2], xu})
		}
	}
	var shapes []benchShape
	for _, s := range strings.Split(*shapesFlag, ",") {
		d, err := parseDims(s, 2)
		if err != nil {
			return err
		}
		shapes = append(shapes, benchShape{d[0], d[1]})
	}
	ctx := context.Background()
	d, err := webgpu.Open(ctx, opt)
	if err != nil {
		return err
	}
	defer d.Close()
	info := d.Info()
	fmt.Printf("device: %s (%s, %s), maxStorageBufferBindingSize %d, maxBufferSize %d\n",
		info.Adapter, info.Backend, info.AdapterType, info.Limits.MaxStorageBufferBindingSize, info.Limits.MaxBufferSize)
	b := &bencher{d: d, iters: *iters, minBytes: *minBytes, r: rand.New(rand.NewPCG(1, 2)), verbose: *verbose}
	if *attnPrefill != "" {
		kv, ok := gguf.ParseType(*attnPrefillKV)
		if !ok || kv != gguf.TypeF16 && kv != gguf.TypeF32 {
			return fmt.Errorf("-attn-prefill-kv %q: f16 or f32", *attnPrefillKV)
		}
		return b.attnPrefillBench(ctx, os.Stdout, *attnPrefill, *attnPrefillKernels, kv, *attnPrefillWindow, *attnPrefillCap)
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "matvec\tformat\tN x K\tweight MiB\tparts\twall us\twall GB/s\tGPU us\tGPU GB/s\tWG:Rows:RPT\t")
	for _, sh := range shapes {
		for _, t := range types {
			for _, pk := range []bool{false, true} {
				if pk && (!*packed || !shaders.Packable(t, sh.K)) {
					continue
				}
				if !pk && !*ggmlLayout && *packed && shaders.Packable(t, sh.K) {
					continue
				}
				label := t.String()
				if pk {
					label += " packed"
				}
				key := shaders.Key{Op: shaders.OpMatvec, Weight: t, WG: *wg, Rows: *rows, RPT: *rpt, Packed: pk, SwiGLU: *swiglu, Norm: *norm}
				res, err := b.bestMatvec(ctx, key, sh, configs)
				if err != nil {
					fmt.Fprintf(tw, "matvec\t%s\t%dx%d\t\t\t%v\t\t\t\t\n", label, sh.N, sh.K, err)
					continue
				}
				gbs := "-"
				if res.gpu > 0 {
					gbs = fmt.Sprintf("%.1f", float64(res.bytes)/res.gpu.Seconds()/1e9)
				}
				fmt.Fprintf(tw, "matvec\t%s\t%dx%d\t%.1f\t%d\t%.1f\t%.1f\t%s\t%s\t%s\t\n", label, sh.N, sh.K, float64(res.bytes)/(1<<20), res.parts,
					res.wall.Seconds()*1e6, float64(res.bytes)/res.wall.Seconds()/1e9, fmtGPU(res.gpu), gbs, res.config)
			}
		}
		tw.Flush()
	}
	if *mm == "" {
		return nil
	}
	dims, err := parseDims(*mm, 3)
	if err != nil {
		return err
	}
	type mmTile struct {
		dims       []int
		db, scalar bool
		name       string
	}
	var tiles []mmTile
	for _, s := range strings.Split(*mmTiles, ",") {
		s = strings.TrimSpace(s)
		dimsPart := strings.TrimRight(s, "ds")
		flags := s[len(dimsPart):]
		d, err := parseDims(dimsPart, 3)
		if err != nil {
			return fmt.Errorf("-matmul-tiles: %w", err)
		}
		tiles = append(tiles, mmTile{d, strings.Contains(flags, "d"), strings.Contains(flags, "s"), s})
	}
	fmt.Fprintln(tw, "matmul\tformat\tM x K x N\ttile\tms/dispatch\tGFLOP/s\tGPU ms (timestamps)\t")
	type mmCase struct {
		t      gguf.GGMLType
		packed bool
	}
	var mmCases []mmCase
	for _, t := range mmTypes {
		mmCases = append(mmCases, mmCase{t, false})
		if *packed && shaders.Packable(t, dims[1]) {
			mmCases = append(mmCases, mmCase{t, true})
		}
	}
	for _, mc := range mmCases {
		t := mc.t
		label := t.String()
		if mc.packed {
			label += " packed"
		}
		var res benchResult
		var err error
		tile := ""
		flops := 2 * float64(dims[0]) * float64(dims[1]) * float64(dims[2])
		for _, tl := range tiles {
			key := shaders.Key{Op: shaders.OpMatmul, Weight: t, TM: tl.dims[0], TN: tl.dims[1], TK: tl.dims[2], DB: tl.db, Packed: mc.packed}
			if !tl.scalar { // as the runtime reads x (gpu's tuned)
				key = shaders.MatmulXVec(key, dims[1])
			}
			name := tl.name
			r, e := b.matmul(ctx, key, dims[0], dims[1], dims[2])
			if e != nil {
				err = e // reported only if no tile runs
				if *verbose {
					fmt.Fprintf(os.Stderr, "  matmul %s %s: %v\n", label, name, e)
				}
				continue
			}
			if *verbose {
				fmt.Fprintf(os.Stderr, "  matmul %s %s: %.3f ms wall, GPU %.3f ms (%.0f GFLOP/s)\n", label, name,
					r.wall.Seconds()*1e3, r.gpu.Seconds()*1e3, flops/r.gpu.Seconds()/1e9)
			}
			rt, bt := r.gpu, res.gpu
			if rt == 0 {
				rt, bt = r.wall, res.wall
			}
			if tile == "" || rt < bt {
				res, tile = r, name
			}
		}
		if tile == "" {
			fmt.Fprintf(tw, "matmul\t%s\t%dx%dx%d\t\t%v\t\t\t\n", label, dims[0], dims[1], dims[2], err)
			continue
		}
		gpu := "-"
		if res.gpu > 0 {
			gpu = fmt.Sprintf("%.2f (%.0f GFLOP/s)", res.gpu.Seconds()*1e3, flops/res.gpu.Seconds()/1e9)
		}
		fmt.Fprintf(tw, "matmul\t%s\t%dx%dx%d\t%s\t%.2f\t%.0f\t%s\t\n", label, dims[0], dims[1], dims[2], tile,
			res.wall.Seconds()*1e3, flops/res.wall.Seconds()/1e9, gpu)
	}
	return tw.Flush()
}

func fmtGPU(d time.Duration) string {
	if d <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", d.Seconds()*1e6)
}

func parseFormats(s string) ([]gguf.GGMLType, error) {
	if s == "all" {
		return shaders.WeightTypes, nil
	}
	var out []gguf.GGMLType
	for _, f := range strings.Split(s, ",") {
		t, ok := gguf.ParseType(strings.TrimSpace(f))
		if !ok {
			return nil, fmt.Errorf("unknown weight format %q", f)
		}
		out = append(out, t)
	}
	return out, nil
}

func parseDims(s string, n int) ([]int, error) {
	parts := strings.Split(strings.TrimSpace(s), "x")
	if len(parts) != n {
		return nil, fmt.Errorf("shape %q: want %d sizes joined by x", s, n)
	}
	out := make([]int, n)
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || v <= 0 || v > 1<<20 {
			return nil, fmt.Errorf("shape %q: size %q is not in [1, 2^20]", s, p)
		}
		out[i] = v
	}
	return out, nil
}

type bencher struct {
	verbose  bool // print every sweep configuration
	d        *webgpu.Device
	iters    int
	minBytes int64
	r        *rand.Rand
}

type benchResult struct {
	bytes  int64         // bytes one dispatch must read and write
	wall   time.Duration // per dispatch, wall clock over a whole tape
	gpu    time.Duration // median per-dispatch GPU time from timestamps, 0 when unavailable
	parts  int           // dispatches per operation (row splits)
	config string        // the matvec WG:Rows:RPT measured
}

// mvConfig is one matvec configuration of -sweep: WG:Rows:RPT[:XU]; xu is
// Key.XU (0: the default).
type mvConfig struct {
	wg, rows, rpt, xu int
}

// bestMatvec measures key, or each of configs when given, and returns the
// fastest (by GPU time when timestamps exist, else wall clock).
func (b *bencher) bestMatvec(ctx context.Context, key shaders.Key, sh benchShape, configs []mvConfig) (benchResult, error) {
	if len(configs) == 0 {
		return b.matvec(ctx, key, sh)
	}
	var best benchResult
	var errs []string
	for _, c := range configs {
		key.WG, key.Rows, key.RPT, key.XU = c.wg, c.rows, c.rpt, c.xu
		res, err := b.matvec(ctx, key, sh)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		if b.verbose {
			fmt.Printf("  sweep %s packed=%t %dx%d %s: GPU %s, wall %.1f us\n", key.Weight, key.Packed, sh.N, sh.K, res.config, fmtGPU(res.gpu), res.wall.Seconds()*1e6)
		}
		t, bt := res.gpu, best.gpu
		if t == 0 {
			t, bt = res.wall, best.wall
		}
		if best.bytes == 0 || t < bt {
			best = res
		}
	}
	if best.bytes == 0 {
		return best, fmt.Errorf("no config ran: %s", strings.Join(errs, "; "))
	}
	return best, nil
}

// weights returns random bytes of n elements of type t: random quant bits
// with small finite f16 scales (the values do not matter for speed, but NaN
// or denormal-heavy data could).
func (b *bencher) weights(t gguf.GGMLType, n int64) ([]byte, error) {
	size, ok := t.RowBytes(n)
	if !ok {
		return nil, fmt.Errorf("%d elements are not whole %s blocks", n, t)
	}
	buf := make([]byte, size)
	for i := 0; i+8 <= len(buf); i += 8 {
		binary.LittleEndian.PutUint64(buf[i:], b.r.Uint64())
	}
	half := gguf.F32ToF16(0.01)
	switch t {
	case gguf.TypeF32:
		for i := 0; i+4 <= len(buf); i += 4 {
			binary.LittleEndian.PutUint32(buf[i:], math.Float32bits(float32(b.r.Float64()-0.5)))
		}
	case gguf.TypeF16, gguf.TypeBF16:
		for i := 0; i+2 <= len(buf); i += 2 {
			binary.LittleEndian.PutUint16(buf[i:], half^uint16(b.r.IntN(1024)))
		}
	default:
		// Every format keeps an f16 scale in its first or last 2..4 bytes;
		// overwrite both ends of each block with a sane f16.
		ts := t.TypeSize()
		for blk := 0; blk+ts <= len(buf); blk += ts {
			binary.LittleEndian.PutUint16(buf[blk:], half)
			binary.LittleEndian.PutUint16(buf[blk+2:], half)
			binary.LittleEndian.PutUint16(buf[blk+ts-2:], half)
			binary.LittleEndian.PutUint16(buf[blk+ts-4:], half)
		}
	}
	return buf, nil
}

func (b *bencher) buffer(label string, data []byte, usage webgpu.Usage) (*webgpu.Buffer, error) {
	buf, err := b.d.CreateBuffer(label, uint64(len(data)), usage|webgpu.UsageCopyDst)
	if err != nil {
		return nil, err
	}
	if err := b.d.WriteBuffer(buf, 0, data); err != nil {
		buf.Destroy()
		return nil, err
	}
	return buf, nil
}

// part is one dispatch of a benchmarked operation: weights larger than a
// buffer or binding may hold are split by rows into several parts, as the
// runtime does, each writing its slice of the output (binding out at yOff).
type part struct {
	params shaders.Params
	shape  shaders.Shape
	w      []byte
	yOff   uint64
	ySize  uint64
}

// run builds the kernel and times iters repetitions of all parts, rotating
// over enough weight copies that the GPU's L2 cache cannot serve repeats.
// others are the non-weight storage bindings (after params and w); others[out]
// is the output that parts bind at their own offsets.
func (b *bencher) run(ctx context.Context, key shaders.Key, parts []part, others [][]byte, out int) (wall, gpu time.Duration, err error) {
	k, err := shaders.Build(key)
	if err != nil {
		return 0, 0, err
	}
	layout := make([]webgpu.BindingKind, len(k.Bindings))
	for i, bk := range k.Bindings {
		layout[i] = webgpu.BindingKind(bk)
	}
	p, err := b.d.CachedComputePipeline(k.Key.String(), k.Key.Op.String(), k.WGSL, k.Entry, layout)
	if err != nil {
		return 0, 0, err
	}
	var bufs []*webgpu.Buffer
	defer func() {
		for _, x := range bufs {
			x.Destroy()
		}
	}()
	var total int64
	var us []*webgpu.Buffer
	for _, pt := range parts {
		total += int64(len(pt.w))
		u, err := b.buffer("params", pt.params.Bytes(), webgpu.UsageUniform)
		if err != nil {
			return 0, 0, err
		}
		bufs = append(bufs, u)
		us = append(us, u)
	}
	var io []*webgpu.Buffer
	for _, o := range others {
		x, err := b.buffer("io", o, webgpu.UsageStorage|webgpu.UsageCopySrc)
		if err != nil {
			return 0, 0, err
		}
		bufs = append(bufs, x)
		io = append(io, x)
	}
	copies := int(max(1, min(int64(b.iters), b.minBytes/(total+1)+1)))
	// groups[c][i]: copy c of part i.
	groups := make([][]*webgpu.BindGroup, copies)
	for c := range groups {
		for i, pt := range parts {
			w, err := b.buffer("w", pt.w, webgpu.UsageStorage)
			if err != nil {
				return 0, 0, err
			}
			bufs = append(bufs, w)
			binds := []webgpu.Binding{{Buffer: us[i]}, {Buffer: w}}
			for j, x := range io {
				bd := webgpu.Binding{Buffer: x}
				if j == out {
					bd.Offset, bd.Size = pt.yOff, pt.ySize
				}
				binds = append(binds, bd)
			}
			bg, err := b.d.CreateBindGroup(p, binds)
			if err != nil {
				return 0, 0, err
			}
			groups[c] = append(groups[c], bg)
		}
	}
	tape := b.d.NewTape()
	for it := 0; it < b.iters; it++ {
		for i, pt := range parts {
			x, y, z := k.Dispatch(pt.shape)
			tape.Dispatch(p, groups[it%copies][i], x, y, z)
		}
	}
	sync := func() error {
		_, err := b.d.ReadBuffer(ctx, io[out], 0, 4)
		return err
	}
	// Warm up for a while: pipeline compilation, first-touch page faults,
	// and above all GPU clocks, which idle down between short bursts and made
	// single-run timings vary several-fold. Then time whole tapes for >= 0.2 s.
	runOnce := func() error {
		if err := tape.Run(ctx); err != nil {
			return err
		}
		return sync()
	}
	for start := time.Now(); time.Since(start) < 300*time.Millisecond; {
		if err := runOnce(); err != nil {
			return 0, 0, err
		}
	}
	runs := 0
	start := time.Now()
	for runs == 0 || time.Since(start) < 200*time.Millisecond {
		if err := runOnce(); err != nil {
			return 0, 0, err
		}
		runs++
	}
	wall = time.Since(start) / time.Duration(runs*b.iters)
	if b.d.Has(webgpu.FeatureTimestampQuery) {
		if err := tape.EnableTiming(); err == nil {
			if err := tape.Run(ctx); err == nil {
				ts := tape.Timings()
				var sums []time.Duration
				for it := 0; it+len(parts) <= len(ts); it += len(parts) {
					var s time.Duration
					for _, t := range ts[it : it+len(parts)] {
						s += t
					}
					sums = append(sums, s)
				}
				if len(sums) > 0 {
					sort.Slice(sums, func(i, j int) bool { return sums[i] < sums[j] })
					gpu = sums[len(sums)/2]
				}
			}
		}
	}
	return wall, gpu, nil
}

// maxChunk is the most bytes one weight binding may span on this device.
func (b *bencher) maxChunk() int64 {
	l := b.d.Limits()
	return int64(min(l.MaxBufferSize, l.MaxStorageBufferBindingSize))
}

func f32Data(r *rand.Rand, n int) []byte {
	out := make([]byte, 4*n)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(float32(r.Float64()*2-1)))
	}
	return out
}

func (b *bencher) matvec(ctx context.Context, key shaders.Key, sh benchShape) (benchResult, error) {
	rowBytes, ok := key.Weight.RowBytes(int64(sh.K))
	if !ok {
		return benchResult{}, fmt.Errorf("reduction length %d is not whole %s blocks", sh.K, key.Weight)
	}
	// Rows per part: as many as fit a binding, a multiple of 64 so each
	// part's output offset (4 bytes a row) meets the 256-byte alignment.
	per := int(b.maxChunk()/rowBytes) / 256 * 256
	if per == 0 {
		return benchResult{}, fmt.Errorf("one row of %d bytes exceeds the binding limit", rowBytes)
	}
	var parts []part
	var bytes int64
	for r0 := 0; r0 < sh.N; r0 += per {
		n := min(per, sh.N-r0)
		w, err := b.weights(key.Weight, int64(n)*int64(sh.K))
		if err != nil {
			return benchResult{}, err
		}
		if w, err = packIf(key, sh.K, w); err != nil {
			return benchResult{}, err
		}
		bytes += int64(len(w))
		parts = append(parts, part{
			params: shaders.MatvecParams{K: uint32(sh.K), N: uint32(n), Eps: 1e-5},
			shape:  shaders.Shape{N: n},
			w:      w,
			yOff:   uint64(4 * r0),
			ySize:  uint64((4*n + 15) / 16 * 16),
		})
	}
	others := [][]byte{f32Data(b.r, (sh.K+3)/4*4), make([]byte, (4*sh.N+15)/16*16)}
	if key.SwiGLU {
		// The up matrix (binding 4): one copy, whole (no row split).
		if len(parts) != 1 {
			return benchResult{}, fmt.Errorf("SwiGLU benchmark needs the matrix in one binding")
		}
		wu, err := b.weights(key.Weight, int64(sh.N)*int64(sh.K))
		if err != nil {
			return benchResult{}, err
		}
		if wu, err = packIf(key, sh.K, wu); err != nil {
			return benchResult{}, err
		}
		others = append(others, wu)
		bytes += int64(len(wu))
	}
	if key.Norm {
		others = append(others, f32Data(b.r, (sh.K+3)/4*4)) // the norm weight, the last binding
		bytes += 4 * int64(sh.K)
	}
	wall, gpu, err := b.run(ctx, key, parts, others, 1)
	if err != nil {
		return benchResult{}, err
	}
	bytes += 4*int64(sh.K) + 4*int64(sh.N)
	k, err := shaders.Build(key)
	if err != nil {
		return benchResult{}, err
	}
	cfg := fmt.Sprintf("%d:%d:%d", k.Key.WG, k.Key.Rows, k.Key.RPT)
	if k.Key.XU != 0 {
		cfg += fmt.Sprintf(":%d", k.Key.XU)
	}
	return benchResult{bytes: bytes, wall: wall, gpu: gpu, parts: len(parts), config: cfg}, nil
}

func (b *bencher) matmul(ctx context.Context, key shaders.Key, M, K, N int) (benchResult, error) {
	w, err := b.weights(key.Weight, int64(N)*int64(K))
	if err != nil {
		return benchResult{}, err
	}
	if w, err = packIf(key, K, w); err != nil {
		return benchResult{}, err
	}
	if int64(len(w)) > b.maxChunk() {
		return benchResult{}, fmt.Errorf("weights (%d MiB) exceed one binding", len(w)>>20)
	}
	others := [][]byte{f32Data(b.r, M*K), make([]byte, 4*M*N)}
	saved := b.iters
	b.iters = max(1, b.iters/10) // a matmul is ~1000x a matvec's work
	defer func() { b.iters = saved }()
	pt := part{params: shaders.MatmulParams{M: uint32(M), N: uint32(N), K: uint32(K)}, shape: shaders.Shape{M: M, N: N}, w: w, ySize: uint64(4 * M * N)}
	wall, gpu, err := b.run(ctx, key, []part{pt}, others, 1)
	return benchResult{wall: wall, gpu: gpu, parts: 1}, err
}

// packIf rewrites w (rows of k elements) into the packed layout when key
// reads packed weights of its format, as the runtime's load does on the GPU.
func packIf(key shaders.Key, k int, w []byte) ([]byte, error) {
	if !key.Packed || !shaders.Packable(key.Weight, k) {
		return w, nil
	}
	return shaders.Pack(key.Weight, k, w)
}
