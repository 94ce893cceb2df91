package model

import (
	"reflect"
	"sort"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/gguf"
)

// Model is a loaded architecture: its hyperparameters, its weights (to be
// stored by a backend) and its forward pass.
type Model interface {
	// Config returns the hyperparameters.
	Config() Config
	// Weights lists every weight tensor once, in binding order.
	Weights() []*compute.Tensor
	// Forward adds the forward pass to g (reading and writing kv) and
	// marks the logits; it returns g's build error.
	Forward(g *compute.Graph, kv *KVCache) error
}

// constructor returns a fresh, unbound model struct for a config; Load
// binds its tagged fields and then calls its validate method.
type constructor func(Config) bindable

type bindable interface {
	Model
	validate() error
	setWeights([]*compute.Tensor)
}

var registry = map[string]constructor{}

// register makes an architecture loadable; called from init functions.
func register(arch string, c constructor) { registry[arch] = c }

// Architectures lists the registered architecture names.
func Architectures() []string {
	var s []string
	for a := range registry {
		s = append(s, a)
	}
	sort.Strings(s)
	return s
}

// Load reads f's hyperparameters and binds and checks its tensors.
func Load(f *gguf.File) (Model, error) {
	ctor, ok := registry[f.Arch()]
	if !ok {
		return nil, &UnknownArchError{Arch: f.Arch()}
	}
	cfg, err := ReadConfig(f)
	if err != nil {
		return nil, err
	}
	emb, ok := f.Tensor("token_embd.weight")
	if !ok {
		return nil, &MissingTensorError{Name: "token_embd.weight"}
	}
	if len(emb.Ne) < 2 || emb.Ne[1] < 1 || emb.Ne[1] > 1<<24 {
		return nil, &ShapeError{Name: emb.Name, Got: emb.Ne, Want: []int{cfg.NEmbd, -1}}
	}
	cfg.NVocab = int(emb.Ne[1])
	m := ctor(cfg)
	b := &binder{f: f, nLayer: cfg.NLayer, byName: map[string]*compute.Tensor{}}
	if err := b.bind(reflect.ValueOf(m).Elem(), ""); err != nil {
		return nil, err
	}
	m.setWeights(b.order)
	if err := m.validate(); err != nil {
		return nil, err
	}
	return m, nil
}

// KVCache is the per-layer K and V cache, each f32 [head_dim, n_ctx,
// n_head_kv]: laid out [layer][kv_head][pos][dim].
type KVCache struct {
	NCtx int
	K, V []*compute.Tensor
}

// NewKVCache describes (does not allocate) a cache of nCtx positions.
func NewKVCache(c Config, nCtx int) *KVCache {
	kv := &KVCache{NCtx: nCtx}
	for range c.NLayer {
		kv.K = append(kv.K, compute.NewCache("cache_k", c.HeadDim, nCtx, c.NHeadKV))
		kv.V = append(kv.V, compute.NewCache("cache_v", c.HeadDim, nCtx, c.NHeadKV))
	}
	return kv
}

// Bytes is the cache's size in bytes.
func (kv *KVCache) Bytes() int64 {
	var n int64
	for i := range kv.K {
		n += int64(kv.K[i].Elems()+kv.V[i].Elems()) * 4
	}
	return n
}
