package llama

import (
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"github.com/memd-dev/memd/inference/gguf"
)

// ModelParams says how to load a model. The zero value loads every layer
// onto the GPU for GPU builds and runs on the CPU otherwise.
type ModelParams struct {
	// GPULayers is the number of layers to offload: -1 all, n > 0 that many;
	// 0 means all on a GPU build (use CPUOnly to keep weights off the GPU).
	GPULayers int
	CPUOnly   bool
	// VocabOnly loads the vocabulary without weights (tokenize only).
	VocabOnly bool
}

// Model is a loaded model: its weights, vocabulary and metadata. Tokenizing
// and the metadata getters are safe for concurrent use; Close must not race
// with anything and must follow Close of every Context made from it.
type Model struct {
	lib   *Library
	ptr   uintptr
	vocab uintptr
	info  *gguf.Info

	mu       sync.Mutex
	adapters []*Adapter
}

// LoadModel checks the GGUF file at path (gguf.Check: a missing, truncated
// or corrupt file is an error here, before llama.cpp reads it) and loads it.
func (l *Library) LoadModel(path string, p ModelParams) (*Model, error) {
	info, err := gguf.Check(path)
	if err != nil {
		return nil, err
	}
	mp := l.fn.modelDefaultParams()
	switch {
	case p.CPUOnly:
		mp.NGPULayers = 0
	case p.GPULayers == 0 && l.gpu():
		mp.NGPULayers = -1
	case p.GPULayers == 0:
		mp.NGPULayers = 0
	default:
		mp.NGPULayers = int32(p.GPULayers)
	}
	mp.VocabOnly = p.VocabOnly
	lastError()
	ptr := l.fn.modelLoadFromFile(path, mp)
	if ptr == 0 {
		return nil, fmt.Errorf("%w %s: %s", ErrLoadModel, path, orUnknown(lastError()))
	}
	return &Model{lib: l, ptr: ptr, vocab: l.fn.modelGetVocab(ptr), info: info}, nil
}

func orUnknown(s string) string {
	if s == "" {
		return "no reason given (see the llama.cpp log)"
	}
	return s
}

// Close frees the model and its adapters. Closing twice is a no-op.
func (m *Model) Close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ptr == 0 {
		return
	}
	for _, a := range m.adapters {
		a.ptr = 0 // freed with the model
	}
	m.adapters = nil
	m.lib.fn.modelFree(m.ptr)
	m.ptr, m.vocab = 0, 0
}

// Info is what gguf.Check read from the file before loading it.
func (m *Model) Info() *gguf.Info { return m.info }

// NVocab is the number of tokens in the vocabulary (the length of a logits row).
func (m *Model) NVocab() int { return int(m.lib.fn.vocabNTokens(m.vocab)) }

// NEmbd is the model's embedding width.
func (m *Model) NEmbd() int { return int(m.lib.fn.modelNEmbd(m.ptr)) }

// NEmbdOut is the width of the model's output embeddings (usually NEmbd).
func (m *Model) NEmbdOut() int { return int(m.lib.fn.modelNEmbdOut(m.ptr)) }

// NCtxTrain is the context length the model was trained with.
func (m *Model) NCtxTrain() int { return int(m.lib.fn.modelNCtxTrain(m.ptr)) }

// NLayer is the number of blocks.
func (m *Model) NLayer() int { return int(m.lib.fn.modelNLayer(m.ptr)) }

// NParams is the number of weights.
func (m *Model) NParams() uint64 { return m.lib.fn.modelNParams(m.ptr) }

// SizeBytes is the total size of the model's tensors.
func (m *Model) SizeBytes() uint64 { return m.lib.fn.modelSize(m.ptr) }

// Desc is llama.cpp's one-line description, e.g. "llama ?B F16".
func (m *Model) Desc() string {
	buf := make([]byte, 256)
	n := m.lib.fn.modelDesc(m.ptr, &buf[0], uintptr(len(buf)))
	return string(buf[:max(0, min(int(n), len(buf)-1))])
}

// Meta returns a metadata value rendered as a string by llama.cpp (arrays
// are not supported), and whether the key exists.
func (m *Model) Meta(key string) (string, bool) {
	buf := make([]byte, 1024)
	for {
		n := m.lib.fn.modelMetaValStr(m.ptr, key, &buf[0], uintptr(len(buf)))
		if n < 0 {
			return "", false
		}
		if int(n) < len(buf) {
			return string(buf[:n]), true
		}
		buf = make([]byte, n+1)
	}
}

// PoolingType is the model's pooling (llama_pooling_type: -1 unspecified,
// 0 none, 1 mean, 2 cls, 3 last, 4 rank), from <arch>.pooling_type.
func (m *Model) PoolingType() int {
	if s, ok := m.Meta(m.info.Architecture + ".pooling_type"); ok {
		var v int
		if _, err := fmt.Sscan(s, &v); err == nil {
			return v
		}
	}
	return PoolingUnspecified
}

// Adapter is a LoRA adapter loaded for one model. Activate it on a context
// with Context.SetAdapters.
type Adapter struct {
	model *Model
	ptr   uintptr
	path  string
}

// LoadAdapter loads a LoRA adapter GGUF made for this model; it fails with
// ErrAdapter when llama.cpp rejects it (wrong base model, bad shapes).
func (m *Model) LoadAdapter(path string) (*Adapter, error) {
	if _, err := gguf.Check(path); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ptr == 0 {
		return nil, ErrClosed
	}
	lastError()
	ptr := m.lib.fn.adapterLoraInit(m.ptr, path)
	if ptr == 0 {
		return nil, fmt.Errorf("%w %s: %s", ErrAdapter, path, orUnknown(lastError()))
	}
	a := &Adapter{model: m, ptr: ptr, path: path}
	m.adapters = append(m.adapters, a)
	return a, nil
}

// Path is the adapter's file.
func (a *Adapter) Path() string { return a.path }

// Close frees the adapter. It must not be active on any context. Closing
// twice, or after the model's Close, is a no-op.
func (a *Adapter) Close() {
	m := a.model
	m.mu.Lock()
	defer m.mu.Unlock()
	if a.ptr == 0 {
		return
	}
	m.lib.fn.adapterLoraFree(a.ptr)
	a.ptr = 0
	for i, x := range m.adapters {
		if x == a {
			m.adapters = append(m.adapters[:i], m.adapters[i+1:]...)
			break
		}
	}
}

// ChatMessage is one turn given to a chat template.
type ChatMessage struct{ Role, Content string }

// ChatTemplate is the model's tokenizer.chat_template, "" when it has none.
func (m *Model) ChatTemplate() string {
	return goString(m.lib.fn.modelChatTemplate(m.ptr, nil))
}

// ApplyChatTemplate formats msgs with llama.cpp's built-in implementation of
// the template tmpl ("" = the model's own), ending with the assistant's turn
// opener when addAssistant is set. llama.cpp recognizes templates by their
// markers (Gemma's by <start_of_turn>); an unknown one is ErrChatTemplate.
func (m *Model) ApplyChatTemplate(tmpl string, msgs []ChatMessage, addAssistant bool) (string, error) {
	if tmpl == "" {
		if tmpl = m.ChatTemplate(); tmpl == "" {
			return "", fmt.Errorf("%w: the model has no tokenizer.chat_template", ErrChatTemplate)
		}
	}
	cmsgs := make([]cChatMessage, max(1, len(msgs)))
	size := 64
	for i, msg := range msgs {
		cmsgs[i] = cChatMessage{Role: cString(msg.Role), Content: cString(msg.Content)}
		size += 2*len(msg.Content) + len(msg.Role) + 32
	}
	ctmpl := cString(tmpl)
	for {
		buf := make([]byte, size)
		n := m.lib.fn.chatApplyTemplate(ctmpl, unsafe.Pointer(&cmsgs[0]), uintptr(len(msgs)), addAssistant, &buf[0], int32(len(buf)))
		runtime.KeepAlive(cmsgs)
		if n < 0 {
			return "", fmt.Errorf("%w by llama.cpp's built-in templates", ErrChatTemplate)
		}
		if int(n) <= len(buf) {
			return string(buf[:n]), nil
		}
		size = int(n) + 1
	}
}
