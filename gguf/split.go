package gguf

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
)

// Split-model metadata keys, as written by llama-gguf-split.
const (
	KeySplitCount        = "split.count"
	KeySplitNo           = "split.no"
	KeySplitTensorsCount = "split.tensors.count"
)

// Part is one shard of a split model.
type Part struct {
	R    io.ReaderAt
	Size int64
}

// OpenSplit opens the shards of a split model, in order, as one File:
// metadata from shard 0, tensors from all shards (TensorInfo.Split names
// the shard). Each shard must carry split.no = its index and split.count =
// len(parts), and shard 0's split.tensors.count must equal the total tensor
// count; tensor names must be unique across shards. A single part without
// split keys is accepted as an ordinary file.
func OpenSplit(parts []Part) (*File, error) {
	if len(parts) == 0 {
		return nil, ferr(0, KeySplitCount, fmt.Errorf("%w: no shards", ErrSplit))
	}
	var out *File
	for i, p := range parts {
		f, err := Open(p.R, p.Size)
		if err != nil {
			return nil, fmt.Errorf("split %d: %w", i, err)
		}
		if err := checkShard(f, i, len(parts)); err != nil {
			return nil, err
		}
		if i == 0 {
			out = f
			continue
		}
		if n, ok := f.Uint(KeySplitTensorsCount); ok {
			if n0, ok0 := out.Uint(KeySplitTensorsCount); !ok0 || n != n0 {
				return nil, ferr(0, fmt.Sprintf("split %d %s", i, KeySplitTensorsCount), fmt.Errorf("%w: %d, shard 0 says %v", ErrSplit, n, valueOrMissing(out, KeySplitTensorsCount)))
			}
		}
		out.shards = append(out.shards, f.shards[0])
		for _, ti := range f.Tensors {
			if _, dup := out.tIndex[ti.Name]; dup {
				return nil, ferr(0, fmt.Sprintf("split %d tensor %q", i, ti.Name), ErrDuplicateTensor)
			}
			ti.Split = i
			out.tIndex[ti.Name] = len(out.Tensors)
			out.Tensors = append(out.Tensors, ti)
		}
	}
	if n, ok := out.Uint(KeySplitTensorsCount); ok && n != uint64(len(out.Tensors)) {
		return nil, ferr(0, KeySplitTensorsCount, fmt.Errorf("%w: says %d tensors, shards hold %d", ErrSplit, n, len(out.Tensors)))
	}
	return out, nil
}

func checkShard(f *File, i, n int) error {
	count, hasCount := f.Uint(KeySplitCount)
	no, hasNo := f.Uint(KeySplitNo)
	if !hasCount && !hasNo && n == 1 {
		return nil
	}
	if !hasCount || count != uint64(n) {
		return ferr(0, fmt.Sprintf("split %d %s", i, KeySplitCount), fmt.Errorf("%w: %d shards given, file says %v", ErrSplit, n, valueOrMissing(f, KeySplitCount)))
	}
	if !hasNo || no != uint64(i) {
		return ferr(0, fmt.Sprintf("split %d %s", i, KeySplitNo), fmt.Errorf("%w: expected %d, file says %v", ErrSplit, i, valueOrMissing(f, KeySplitNo)))
	}
	return nil
}

func valueOrMissing(f *File, key string) any {
	if v, ok := f.Value(key); ok {
		return v.V
	}
	return "nothing"
}

// splitName matches llama.cpp's split file names: PREFIX-00001-of-00003.gguf.
var splitName = regexp.MustCompile(`^(.*)-(\d{5})-of-(\d{5})\.gguf$`)

// SplitPath returns llama.cpp's name of shard no (0-based) of count for a
// path prefix: PREFIX-%05d-of-%05d.gguf (llama_split_path).
func SplitPath(prefix string, no, count int) string {
	return fmt.Sprintf("%s-%05d-of-%05d.gguf", prefix, no+1, count)
}

// SplitPaths returns the paths of all shards of the split model whose
// first shard is path (named like PREFIX-00001-of-00003.gguf), or just
// path when its name has no split suffix.
func SplitPaths(path string) ([]string, error) {
	dir, base := filepath.Split(path)
	m := splitName.FindStringSubmatch(base)
	if m == nil {
		return []string{path}, nil
	}
	no, _ := strconv.Atoi(m[2])
	count, _ := strconv.Atoi(m[3])
	if no != 1 || count < 1 {
		return nil, fmt.Errorf("gguf: %s: not the first shard of a split model: %w", path, ErrSplit)
	}
	out := make([]string, count)
	for i := range out {
		out[i] = SplitPath(filepath.Join(dir, m[1]), i, count)
	}
	return out, nil
}

// OpenSplitPath opens a model from disk given its only file or the first
// shard of a split model (siblings are found with SplitPaths); Close
// releases all shards.
func OpenSplitPath(path string) (*File, error) {
	paths, err := SplitPaths(path)
	if err != nil {
		return nil, err
	}
	var closers []io.Closer
	fail := func(err error) (*File, error) {
		for _, c := range closers {
			c.Close()
		}
		return nil, err
	}
	parts := make([]Part, len(paths))
	for i, p := range paths {
		fh, err := os.Open(p)
		if err != nil {
			return fail(err)
		}
		closers = append(closers, fh)
		st, err := fh.Stat()
		if err != nil {
			return fail(err)
		}
		parts[i] = Part{R: fh, Size: st.Size()}
	}
	f, err := OpenSplit(parts)
	if err != nil {
		return fail(fmt.Errorf("%s: %w", path, err))
	}
	f.closers = closers
	return f, nil
}

// Splits returns the number of shards (1 for an ordinary file).
func (f *File) Splits() int { return len(f.shards) }

// SplitKV returns the split keys of shard no (0-based) of count for a model
// of nTensors tensors, with llama-gguf-split's types (u16, u16, i32); a
// writer of shards puts them after the model's metadata in shard 0 and
// alone in the others.
func SplitKV(no, count, nTensors int) []KV {
	return []KV{
		{KeySplitNo, ValueOf(uint16(no))},
		{KeySplitCount, ValueOf(uint16(count))},
		{KeySplitTensorsCount, ValueOf(int32(nTensors))},
	}
}
