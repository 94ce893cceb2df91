package engine

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"slices"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/gguf"
)

// sessionMagic opens a saved session; the version follows it.
const (
	sessionMagic   = "WGGUFSES"
	sessionVersion = 1
	// maxSessionHeader bounds the JSON header (tokens live in it).
	maxSessionHeader = 64 << 20
)

// SessionHeader is what a saved session says about itself, checked by
// Restore against the engine it is restored into.
type SessionHeader struct {
	// Model is the ModelHash of the model the session ran on.
	Model string `json:"model"`
	Arch  string `json:"arch"`
	NCtx  int    `json:"n_ctx"`
	// Layers, HeadDim and NHeadKV are the cache's shape.
	Layers  int `json:"n_layer"`
	HeadDim int `json:"head_dim"`
	NHeadKV int `json:"n_head_kv"`
	// Tokens are the positions the cache holds; Written is the engine's
	// count of positions stored since its last reset (a sliding-window
	// ring may have overwritten older ones).
	Tokens  []int32 `json:"tokens"`
	Written int     `json:"written"`
	// Meta is the caller's (Save's meta): a chat's messages, say.
	Meta json.RawMessage `json:"meta,omitempty"`
}

// SessionFileError is returned by Restore for bytes that are not a whole,
// intact saved session; the session and its cache are left as they were.
type SessionFileError struct{ Reason string }

// Error formats the SessionFileError.
func (e *SessionFileError) Error() string { return "engine: session file: " + e.Reason }

// SessionMismatchError is returned by Restore for a session saved on
// another model or cache (Field names what differs); nothing is changed.
type SessionMismatchError struct {
	Field       string
	Saved, Here string
}

// Error formats the SessionMismatchError.
func (e *SessionMismatchError) Error() string {
	return fmt.Sprintf("engine: session saved with %s %s, this engine has %s", e.Field, e.Saved, e.Here)
}

// ModelHash names the engine's model for saved sessions: SHA-256 of its
// metadata and its tensors' names, types, shapes, offsets and sizes,
// computed at Load. It reads no weight data (in the browser the file may
// be closed once the weights are placed, or remote), so two files that
// differ in weights alone, with metadata and layout alike, share it.
func (e *Engine) ModelHash() string { return e.modelHash }

// modelHash computes ModelHash from f's header.
// It runs on every Load, so values go to the hash as bytes: formatting a
// 128k-token vocabulary's arrays as text cost 71 ms and 48 MB of garbage
// a load natively.
func modelHash(f *gguf.File) string {
	h := sha256.New()
	// Everything but the non-string arrays goes through buf, so that the
	// vocabulary's strings cost no allocation each.
	buf := make([]byte, 0, 64<<10)
	u64 := func(v uint64) { buf = binary.LittleEndian.AppendUint64(buf, v) }
	str := func(s string) { // length-prefixed: no two KV lists hash alike
		u64(uint64(len(s)))
		buf = append(buf, s...)
		if len(buf) > 32<<10 {
			h.Write(buf)
			buf = buf[:0]
		}
	}
	for _, kv := range f.KV {
		str(kv.Key)
		u64(uint64(kv.Value.Type))
		switch x := kv.Value.V.(type) {
		case string:
			str(x)
		case []string:
			u64(uint64(len(x)))
			for _, s := range x {
				str(s)
			}
		default:
			// Numbers, bools and their slices as fixed-size bytes; anything
			// else (nested arrays) as text.
			h.Write(buf)
			buf = buf[:0]
			if binary.Write(h, binary.LittleEndian, x) != nil {
				fmt.Fprint(h, x)
			}
		}
	}
	h.Write(buf)
	for _, ti := range f.Tensors {
		fmt.Fprintf(h, "%s %d %v %d %d\n", ti.Name, ti.Type, ti.Ne, ti.Offset, ti.Size)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// rows is how many rows of cache t hold the first pos positions: all of a
// ring's (it holds position p in row p mod length).
func rows(t *compute.Tensor, pos int) int {
	if t.Ring {
		return t.Ne[1]
	}
	return min(pos, t.Ne[1])
}

// Save writes the session (its tokens, its KV cache rows as f32 and meta,
// the caller's JSON or nil) to w: a header naming the model (ModelHash,
// architecture, context, cache shape), the cache, and a CRC-32 of all of
// it. Restore reads it back into an engine of the same model.
func (s *Session) Save(w io.Writer, meta json.RawMessage) error {
	e := s.e
	cio, ok := e.be.(compute.CacheIO)
	if !ok {
		return &OptionError{"backend", e.be.Name() + " cannot read its KV cache back"}
	}
	hd := SessionHeader{Model: e.ModelHash(), Arch: e.cfg.Arch, NCtx: e.nCtx, Layers: len(e.kv.K), HeadDim: e.cfg.HeadDim, NHeadKV: e.cfg.NHeadKV,
		Tokens: slices.Clone(s.tokens), Written: max(e.written, e.pos), Meta: meta}
	if hd.Tokens == nil {
		hd.Tokens = []int32{}
	}
	js, err := json.Marshal(hd)
	if err != nil {
		return err
	}
	crc := crc32.NewIEEE()
	bw := bufio.NewWriter(io.MultiWriter(w, crc))
	var pre [16]byte
	copy(pre[:], sessionMagic)
	binary.LittleEndian.PutUint32(pre[8:], sessionVersion)
	binary.LittleEndian.PutUint32(pre[12:], uint32(len(js)))
	bw.Write(pre[:])
	bw.Write(js)
	var word [4]byte
	for il := range e.kv.K {
		for _, t := range []*compute.Tensor{e.kv.K[il], e.kv.V[il]} {
			data, err := cio.ReadCache(t, rows(t, e.pos))
			if err != nil {
				return err
			}
			for _, v := range data {
				binary.LittleEndian.PutUint32(word[:], math.Float32bits(v))
				bw.Write(word[:])
			}
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	binary.LittleEndian.PutUint32(word[:], crc.Sum32())
	_, err = w.Write(word[:])
	return err
}

// Restore replaces the session with one Save wrote, so that generation
// goes on from its tokens without evaluating them again, and returns its
// header (Meta included). Bytes that are not an intact saved session give
// a *SessionFileError, a session of another model or cache shape a
// *SessionMismatchError; either way the session and its cache are
// unchanged. The whole save is read and checked before the cache is
// written.
func (s *Session) Restore(r io.Reader) (*SessionHeader, error) {
	e := s.e
	cio, ok := e.be.(compute.CacheIO)
	if !ok {
		return nil, &OptionError{"backend", e.be.Name() + " cannot write its KV cache from the host"}
	}
	crc := crc32.NewIEEE()
	br := io.TeeReader(bufio.NewReader(r), crc)
	var pre [16]byte
	if _, err := io.ReadFull(br, pre[:]); err != nil {
		return nil, &SessionFileError{"too short for a header"}
	}
	if string(pre[:8]) != sessionMagic {
		return nil, &SessionFileError{"not a saved session"}
	}
	if v := binary.LittleEndian.Uint32(pre[8:]); v != sessionVersion {
		return nil, &SessionFileError{fmt.Sprintf("version %d, this engine reads %d", v, sessionVersion)}
	}
	n := binary.LittleEndian.Uint32(pre[12:])
	if n > maxSessionHeader {
		return nil, &SessionFileError{fmt.Sprintf("header of %d bytes", n)}
	}
	js := make([]byte, n)
	if _, err := io.ReadFull(br, js); err != nil {
		return nil, &SessionFileError{"truncated in the header"}
	}
	var hd SessionHeader
	if err := json.Unmarshal(js, &hd); err != nil {
		return nil, &SessionFileError{"header: " + err.Error()}
	}
	hash := e.ModelHash()
	for _, c := range []struct {
		field       string
		saved, here any
	}{{"model", hd.Model, hash}, {"architecture", hd.Arch, e.cfg.Arch}, {"context", hd.NCtx, e.nCtx},
		{"layers", hd.Layers, len(e.kv.K)}, {"head size", hd.HeadDim, e.cfg.HeadDim}, {"KV heads", hd.NHeadKV, e.cfg.NHeadKV}} {
		if c.saved != c.here {
			return nil, &SessionMismatchError{Field: c.field, Saved: fmt.Sprint(c.saved), Here: fmt.Sprint(c.here)}
		}
	}
	pos := len(hd.Tokens)
	if pos > e.nCtx || hd.Written < pos {
		return nil, &SessionFileError{fmt.Sprintf("%d tokens (%d written) for a context of %d", pos, hd.Written, e.nCtx)}
	}
	for _, id := range hd.Tokens {
		if id < 0 || int(id) >= e.cfg.NVocab {
			return nil, &SessionFileError{fmt.Sprintf("token %d outside the vocabulary", id)}
		}
	}
	var data [][]float32
	var word [4]byte
	for il := range e.kv.K {
		for _, t := range []*compute.Tensor{e.kv.K[il], e.kv.V[il]} {
			vals := make([]float32, rows(t, pos)*t.Ne[0]*t.Ne[2])
			raw := make([]byte, 4*len(vals))
			if _, err := io.ReadFull(br, raw); err != nil {
				return nil, &SessionFileError{fmt.Sprintf("truncated in layer %d's cache", il)}
			}
			for i := range vals {
				vals[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
			}
			data = append(data, vals)
		}
	}
	sum := crc.Sum32()
	if _, err := io.ReadFull(br, word[:]); err != nil {
		return nil, &SessionFileError{"truncated before its checksum"}
	}
	if binary.LittleEndian.Uint32(word[:]) != sum {
		return nil, &SessionFileError{"checksum mismatch: the file is corrupt"}
	}
	i := 0
	for il := range e.kv.K {
		for _, t := range []*compute.Tensor{e.kv.K[il], e.kv.V[il]} {
			if err := cio.WriteCache(t, rows(t, pos), data[i]); err != nil {
				s.Reset() // part of the cache was written: nothing in it holds
				return nil, err
			}
			i++
		}
	}
	s.tokens = append(s.tokens[:0], hd.Tokens...)
	e.pos, e.written = pos, hd.Written
	return &hd, nil
}
