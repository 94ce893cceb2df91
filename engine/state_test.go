package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/engine/enginetest"
)

// continueGreedy generates n greedy tokens after prompt, appended to what
// s holds.
func continueGreedy(t *testing.T, s *engine.Session, prompt []int32, n int) []int32 {
	t.Helper()
	res, err := s.Generate(context.Background(), engine.GenerateRequest{Prompt: prompt, Append: true, MaxTokens: n})
	if err != nil {
		t.Fatal(err)
	}
	return res.Tokens
}

// TestSessionSaveRestoreContinues: save → restore into a freshly loaded
// engine of the same model → continue gives the tokens of going on without
// saving, for a plain cache and for sliding-window rings (gemma3), and
// restores the caller's meta.
func TestSessionSaveRestoreContinues(t *testing.T) {
	for _, name := range []string{"tiny-llama-q8_0", "tiny-gemma3-q8_0"} {
		t.Run(name, func(t *testing.T) {
			opts := engine.Options{NCtx: 128, NUbatch: 16}
			a, _ := enginetest.Load(t, name, nil, opts)
			sa := newSession(t, a, engine.SessionOptions{EOG: []int32{}})
			first := continueGreedy(t, sa, []int32{1, 450, 1996, 354, 1701, 432, 1204, 975, 278}, 40)
			var buf bytes.Buffer
			if err := sa.Save(&buf, json.RawMessage(`{"chat":"x"}`)); err != nil {
				t.Fatal(err)
			}
			next := []int32{first[len(first)-1], 13, 29, 300}
			want := continueGreedy(t, sa, next, 16)

			b, _ := enginetest.Load(t, name, nil, opts)
			sb := newSession(t, b, engine.SessionOptions{EOG: []int32{}})
			hd, err := sb.Restore(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			if string(hd.Meta) != `{"chat":"x"}` || b.Pos() != len(hd.Tokens) || len(hd.Tokens) != 9+39 {
				t.Fatalf("restored meta %s, pos %d, %d tokens", hd.Meta, b.Pos(), len(hd.Tokens))
			}
			if got := continueGreedy(t, sb, next, 16); !slices.Equal(got, want) {
				t.Fatalf("after restore %v, without saving %v", got, want)
			}
		})
	}
}

// TestSessionRestoreRefusesOtherModelsAndBadFiles: a save restored into
// another model is a *SessionMismatchError; truncated, corrupt or foreign
// bytes are a *SessionFileError; each leaves the session as it was, so
// that it goes on as if nothing happened.
func TestSessionRestoreRefusesOtherModelsAndBadFiles(t *testing.T) {
	opts := engine.Options{NCtx: 128, NUbatch: 16}
	a, _ := enginetest.Load(t, "tiny-llama-q8_0", nil, opts)
	sa := newSession(t, a, engine.SessionOptions{EOG: []int32{}})
	continueGreedy(t, sa, []int32{1, 450, 1996, 3354}, 8)
	var buf bytes.Buffer
	if err := sa.Save(&buf, nil); err != nil {
		t.Fatal(err)
	}
	saved := buf.Bytes()

	// The target holds a conversation of its own, which must survive.
	for _, other := range []string{"tiny-llama-q4_0", "tiny-qwen2-q8_0"} {
		o, _ := enginetest.Load(t, other, nil, opts)
		so := newSession(t, o, engine.SessionOptions{EOG: []int32{}})
		continueGreedy(t, so, []int32{1, 22, 33}, 4)
		var mm *engine.SessionMismatchError
		if _, err := so.Restore(bytes.NewReader(saved)); !errors.As(err, &mm) {
			t.Fatalf("restore into %s: %v, want a *SessionMismatchError", other, err)
		}
	}
	b, _ := enginetest.Load(t, "tiny-llama-q8_0", nil, opts)
	sb := newSession(t, b, engine.SessionOptions{EOG: []int32{}})
	mine := continueGreedy(t, sb, []int32{1, 77, 88}, 6)
	before, pos := sb.Tokens(), b.Pos()
	corrupt := slices.Clone(saved)
	corrupt[len(corrupt)/2] ^= 0x40
	bad := [][]byte{saved[:3], saved[:20], saved[:len(saved)/3], saved[:len(saved)-1], corrupt, []byte("GGUF not a session at all")}
	for i, data := range bad {
		var fe *engine.SessionFileError
		if _, err := sb.Restore(bytes.NewReader(data)); !errors.As(err, &fe) {
			t.Fatalf("bad file %d (%d bytes): %v, want a *SessionFileError", i, len(data), err)
		}
		if !slices.Equal(sb.Tokens(), before) || b.Pos() != pos {
			t.Fatalf("bad file %d changed the session", i)
		}
	}
	// Still usable: it goes on as a session that never saw those bytes.
	c, _ := enginetest.Load(t, "tiny-llama-q8_0", nil, opts)
	sc := newSession(t, c, engine.SessionOptions{EOG: []int32{}})
	if got := continueGreedy(t, sc, []int32{1, 77, 88}, 6); !slices.Equal(got, mine) {
		t.Fatalf("reference run %v, first %v", got, mine)
	}
	next := []int32{mine[len(mine)-1], 5}
	if got, want := continueGreedy(t, sb, next, 8), continueGreedy(t, sc, next, 8); !slices.Equal(got, want) {
		t.Fatalf("after refused restores %v, untouched session %v", got, want)
	}
}
