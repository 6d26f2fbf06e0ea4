package llama

import "unsafe"

// The C structs of llama.h as this build lays them out (see shared/LLAMA.md;
// layout_test.go asserts sizes, offsets and the defaults echoed back).

// cModelParams is struct llama_model_params (80 bytes).
type cModelParams struct {
	Devices             uintptr
	TensorBuftOverrides uintptr
	NGPULayers          int32
	SplitMode           int32
	LoadMode            int32 // -1 auto, 0 none, 1 mmap, 2 mlock, 3 mmap+mlock, 4 direct io
	LazyMode            int32
	MainGPU             int32
	_                   [4]byte
	TensorSplit         uintptr
	ProgressCallback    uintptr
	ProgressUserData    uintptr
	KVOverrides         uintptr
	VocabOnly           bool
	CheckTensors        bool
	UseExtraBufts       bool
	NoHost              bool
	NoAlloc             bool
	LoadMTP             bool
	_                   [2]byte
}

// cContextParams is struct llama_context_params (160 bytes).
type cContextParams struct {
	NCtx              uint32
	NBatch            uint32
	NUbatch           uint32
	NSeqMax           uint32
	NRsSeq            uint32
	NOutputsMax       uint32
	NOutputsMaxPerSeq uint32
	NThreads          int32
	NThreadsBatch     int32
	CtxType           int32
	RopeScalingType   int32
	PoolingType       int32
	AttentionType     int32
	FlashAttnType     int32
	RopeFreqBase      float32
	RopeFreqScale     float32
	YarnExtFactor     float32
	YarnAttnFactor    float32
	YarnBetaFast      float32
	YarnBetaSlow      float32
	YarnOrigCtx       uint32
	DefragThold       float32
	CbEval            uintptr
	CbEvalUserData    uintptr
	TypeK             int32
	TypeV             int32
	AbortCallback     uintptr
	AbortCallbackData uintptr
	Embeddings        bool
	OffloadKQV        bool
	NoPerf            bool
	OpOffload         bool
	SwaFull           bool
	KVUnified         bool
	_                 [2]byte
	Samplers          uintptr
	NSamplers         uintptr
	CtxOther          uintptr
}

// cBatch is struct llama_batch (56 bytes). Its arrays are allocated by
// llama_batch_init in C memory.
type cBatch struct {
	NTokens int32
	_       [4]byte
	Token   unsafe.Pointer // llama_token[n]
	Embd    unsafe.Pointer // float[n*embd] or NULL
	Pos     unsafe.Pointer // llama_pos[n]
	NSeqID  unsafe.Pointer // int32[n]
	SeqID   unsafe.Pointer // llama_seq_id*[n], each llama_seq_id[n_seq_max]
	Logits  unsafe.Pointer // int8[n]
}

// cChatMessage is struct llama_chat_message.
type cChatMessage struct {
	Role    *byte
	Content *byte
}
