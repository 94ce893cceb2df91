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
	// Weights lists every weight tensor once, in binding order. The
	// parts of a fused tensor are weights of their own, views of its
	// rows (Tensor.View; load them through WeightInfo).
	Weights() []*compute.Tensor
	// Forward adds the forward pass to g (reading and writing kv) and
	// marks the logits; it returns g's build error.
	Forward(g *compute.Graph, kv *KVCache) error
}

// arch is what an architecture registers: how to read its own
// hyperparameters and how to make its (unbound) tagged struct.
type arch struct {
	// hparams completes a Config that ReadConfig filled with the keys
	// every architecture shares (nil: nothing more to read).
	hparams func(k *keys, c *Config)
	// new returns a fresh, unbound model struct for a config; Load binds
	// its tagged fields and then calls its shapes method.
	new func(Config) bindable
	// fused are the layers' tensors that hold several weights (Fusion).
	fused []Fusion
}

// bindable is the contract of an architecture's struct.
type bindable interface {
	Model
	// shapes declares every bound tensor's shape with s.want (and the
	// tensors a variant requires with s.need).
	shapes(s *shapes)
	setWeights([]*compute.Tensor)
}

var registry = map[string]arch{}

// register makes an architecture loadable; called from init functions.
func register(name string, a arch) { registry[name] = a }

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
	a, ok := registry[f.Arch()]
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
	m := a.new(cfg)
	b := &binder{f: f, cfg: &cfg, nLayer: cfg.NLayer, byName: map[string]*compute.Tensor{},
		fusions: fusionsOf(cfg.Arch, a), fused: map[string]*fused{}}
	if err := b.bind(reflect.ValueOf(m).Elem(), ""); err != nil {
		return nil, err
	}
	m.setWeights(b.order)
	s := &shapes{}
	m.shapes(s)
	if s.err != nil {
		return nil, s.err
	}
	return m, nil
}

// TensorSpec is one tensor an architecture reads: its GGUF name and shape
// (ggml order; 1-D tensors have Ne[1] == 1).
type TensorSpec struct {
	Name string
	Ne   [2]int
}

// Describe lists the tensors a model of config c reads, with their shapes,
// in binding order: the tensor list that generators and tests write. c
// needs Arch, NVocab and the hyperparameters its architecture uses (as
// ReadConfig returns them). Optional tensors are left out, except those
// named in with (rope_freqs.weight, output.weight for an untied output).
func Describe(c Config, with ...string) ([]TensorSpec, error) {
	a, ok := registry[c.Arch]
	if !ok {
		return nil, &UnknownArchError{Arch: c.Arch}
	}
	m := a.new(c)
	b := &binder{cfg: &c, nLayer: c.NLayer, byName: map[string]*compute.Tensor{}, with: map[string]bool{}, optional: map[*compute.Tensor]bool{},
		fusions: fusionsOf(c.Arch, a), fused: map[string]*fused{}}
	for _, w := range with {
		b.with[w] = true
	}
	if err := b.bind(reflect.ValueOf(m).Elem(), ""); err != nil {
		return nil, err
	}
	s := &shapes{describe: true, optional: b.optional}
	m.shapes(s)
	if s.err != nil {
		return nil, s.err
	}
	if err := b.describeFused(); err != nil {
		return nil, err
	}
	var out []TensorSpec
	for _, t := range b.order {
		if b.optional[t] {
			continue
		}
		if t.Ne[0] == 0 {
			return nil, &ShapeError{Name: t.Name, Got: nil, Want: nil}
		}
		out = append(out, TensorSpec{Name: t.Name, Ne: [2]int{t.Ne[0], t.Ne[1]}})
	}
	return out, nil
}

// base carries what every architecture struct needs: its config and its
// weight list. Embed it.
type base struct {
	cfg     Config
	weights []*compute.Tensor
}

// Config returns the hyperparameters.
func (m *base) Config() Config { return m.cfg }

// Weights lists every weight once.
func (m *base) Weights() []*compute.Tensor { return m.weights }

func (m *base) setWeights(w []*compute.Tensor) { m.weights = w }
