package llama

import (
	"fmt"
	"unsafe"

	"github.com/ebitengine/purego"
)

// api holds the C functions the binding calls, bound once per library.
type api struct {
	backendInit          func()
	backendLoadAllFrom   func(dir string)
	logSet               func(cb uintptr, data uintptr)
	modelDefaultParams   func() cModelParams
	contextDefaultParams func() cContextParams

	modelLoadFromFile func(path string, p cModelParams) uintptr
	modelFree         func(m uintptr)
	modelGetVocab     func(m uintptr) uintptr
	modelNEmbd        func(m uintptr) int32
	modelNEmbdOut     func(m uintptr) int32
	modelNCtxTrain    func(m uintptr) int32
	modelNLayer       func(m uintptr) int32
	modelNParams      func(m uintptr) uint64
	modelSize         func(m uintptr) uint64
	modelDesc         func(m uintptr, buf *byte, size uintptr) int32
	modelChatTemplate func(m uintptr, name *byte) *byte
	modelMetaValStr   func(m uintptr, key string, buf *byte, size uintptr) int32

	vocabNTokens func(v uintptr) int32
	vocabIsEOG   func(v uintptr, tok int32) bool
	vocabBOS     func(v uintptr) int32
	vocabEOS     func(v uintptr) int32
	tokenize     func(v uintptr, text *byte, textLen int32, toks *int32, nMax int32, addSpecial, parseSpecial bool) int32
	tokenToPiece func(v uintptr, tok int32, buf *byte, length int32, lstrip int32, special bool) int32
	detokenize   func(v uintptr, toks *int32, n int32, text *byte, maxLen int32, removeSpecial, unparseSpecial bool) int32

	chatApplyTemplate func(tmpl *byte, msgs unsafe.Pointer, n uintptr, addAss bool, buf *byte, length int32) int32

	adapterLoraInit func(m uintptr, path string) uintptr
	adapterLoraFree func(a uintptr)
	setAdaptersLora func(ctx uintptr, adapters unsafe.Pointer, n uintptr, scales unsafe.Pointer) int32

	initFromModel    func(m uintptr, p cContextParams) uintptr
	free             func(ctx uintptr)
	nCtx             func(ctx uintptr) uint32
	nBatch           func(ctx uintptr) uint32
	nUbatch          func(ctx uintptr) uint32
	nSeqMax          func(ctx uintptr) uint32
	poolingType      func(ctx uintptr) int32
	setAbortCallback func(ctx uintptr, cb uintptr, data uintptr)

	batchInit func(n, embd, nSeqMax int32) cBatch
	batchFree func(b cBatch)
	decode    func(ctx uintptr, b cBatch) int32
	logitsIth func(ctx uintptr, i int32) unsafe.Pointer
	embdSeq   func(ctx uintptr, seq int32) unsafe.Pointer
	getMemory func(ctx uintptr) uintptr
	memClear  func(mem uintptr, data bool)
	memSeqRm  func(mem uintptr, seq, p0, p1 int32) bool
	memPosMax func(mem uintptr, seq int32) int32

	// llama_sampler_chain_init takes a one-byte struct by value, passed like
	// a bool in a register on every ABI memd runs on.
	samplerChainInit     func(noPerf bool) uintptr
	samplerChainAdd      func(chain, s uintptr)
	samplerInitGreedy    func() uintptr
	samplerInitDist      func(seed uint32) uintptr
	samplerInitTopK      func(k int32) uintptr
	samplerInitTopP      func(p float32, minKeep uintptr) uintptr
	samplerInitMinP      func(p float32, minKeep uintptr) uintptr
	samplerInitTemp      func(t float32) uintptr
	samplerInitPenalties func(lastN int32, repeat, freq, present float32) uintptr
	samplerSample        func(s, ctx uintptr, idx int32) int32
	samplerAccept        func(s uintptr, tok int32)
	samplerReset         func(s uintptr)
	samplerFree          func(s uintptr)
}

func (a *api) bind(handle uintptr) error {
	return bindSymbols(handle, []symbol{
		{"llama_backend_init", &a.backendInit},
		{"ggml_backend_load_all_from_path", &a.backendLoadAllFrom},
		{"llama_log_set", &a.logSet},
		{"llama_model_default_params", &a.modelDefaultParams},
		{"llama_context_default_params", &a.contextDefaultParams},
		{"llama_model_load_from_file", &a.modelLoadFromFile},
		{"llama_model_free", &a.modelFree},
		{"llama_model_get_vocab", &a.modelGetVocab},
		{"llama_model_n_embd", &a.modelNEmbd},
		{"llama_model_n_embd_out", &a.modelNEmbdOut},
		{"llama_model_n_ctx_train", &a.modelNCtxTrain},
		{"llama_model_n_layer", &a.modelNLayer},
		{"llama_model_n_params", &a.modelNParams},
		{"llama_model_size", &a.modelSize},
		{"llama_model_desc", &a.modelDesc},
		{"llama_model_chat_template", &a.modelChatTemplate},
		{"llama_model_meta_val_str", &a.modelMetaValStr},
		{"llama_vocab_n_tokens", &a.vocabNTokens},
		{"llama_vocab_is_eog", &a.vocabIsEOG},
		{"llama_vocab_bos", &a.vocabBOS},
		{"llama_vocab_eos", &a.vocabEOS},
		{"llama_tokenize", &a.tokenize},
		{"llama_token_to_piece", &a.tokenToPiece},
		{"llama_detokenize", &a.detokenize},
		{"llama_chat_apply_template", &a.chatApplyTemplate},
		{"llama_adapter_lora_init", &a.adapterLoraInit},
		{"llama_adapter_lora_free", &a.adapterLoraFree},
		{"llama_set_adapters_lora", &a.setAdaptersLora},
		{"llama_init_from_model", &a.initFromModel},
		{"llama_free", &a.free},
		{"llama_n_ctx", &a.nCtx},
		{"llama_n_batch", &a.nBatch},
		{"llama_n_ubatch", &a.nUbatch},
		{"llama_n_seq_max", &a.nSeqMax},
		{"llama_pooling_type", &a.poolingType},
		{"llama_set_abort_callback", &a.setAbortCallback},
		{"llama_batch_init", &a.batchInit},
		{"llama_batch_free", &a.batchFree},
		{"llama_decode", &a.decode},
		{"llama_get_logits_ith", &a.logitsIth},
		{"llama_get_embeddings_seq", &a.embdSeq},
		{"llama_get_memory", &a.getMemory},
		{"llama_memory_clear", &a.memClear},
		{"llama_memory_seq_rm", &a.memSeqRm},
		{"llama_memory_seq_pos_max", &a.memPosMax},
		{"llama_sampler_chain_init", &a.samplerChainInit},
		{"llama_sampler_chain_add", &a.samplerChainAdd},
		{"llama_sampler_init_greedy", &a.samplerInitGreedy},
		{"llama_sampler_init_dist", &a.samplerInitDist},
		{"llama_sampler_init_top_k", &a.samplerInitTopK},
		{"llama_sampler_init_top_p", &a.samplerInitTopP},
		{"llama_sampler_init_min_p", &a.samplerInitMinP},
		{"llama_sampler_init_temp", &a.samplerInitTemp},
		{"llama_sampler_init_penalties", &a.samplerInitPenalties},
		{"llama_sampler_sample", &a.samplerSample},
		{"llama_sampler_accept", &a.samplerAccept},
		{"llama_sampler_reset", &a.samplerReset},
		{"llama_sampler_free", &a.samplerFree},
	})
}

// symbol is one C function to look up and the Go func variable to bind it to.
type symbol struct {
	name string
	fn   any
}

func bindSymbols(handle uintptr, syms []symbol) error {
	for _, s := range syms {
		addr, err := purego.Dlsym(handle, s.name)
		if err != nil || addr == 0 {
			return fmt.Errorf("%w: %s", ErrSymbol, s.name)
		}
		purego.RegisterFunc(s.fn, addr)
	}
	return nil
}
