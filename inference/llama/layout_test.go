package llama

import (
	"testing"
	"unsafe"
)

func TestStructLayouts(t *testing.T) {
	var mp cModelParams
	var cp cContextParams
	var b cBatch
	cases := []struct {
		name      string
		got, want uintptr
	}{
		{"sizeof llama_model_params", unsafe.Sizeof(mp), 80},
		{"model n_gpu_layers", unsafe.Offsetof(mp.NGPULayers), 16},
		{"model load_mode", unsafe.Offsetof(mp.LoadMode), 24},
		{"model lazy_mode", unsafe.Offsetof(mp.LazyMode), 28},
		{"model main_gpu", unsafe.Offsetof(mp.MainGPU), 32},
		{"model tensor_split", unsafe.Offsetof(mp.TensorSplit), 40},
		{"model progress_callback", unsafe.Offsetof(mp.ProgressCallback), 48},
		{"model kv_overrides", unsafe.Offsetof(mp.KVOverrides), 64},
		{"model vocab_only", unsafe.Offsetof(mp.VocabOnly), 72},
		{"model use_extra_bufts", unsafe.Offsetof(mp.UseExtraBufts), 74},
		{"model load_mtp", unsafe.Offsetof(mp.LoadMTP), 77},
		{"sizeof llama_context_params", unsafe.Sizeof(cp), 160},
		{"ctx n_seq_max", unsafe.Offsetof(cp.NSeqMax), 12},
		{"ctx n_outputs_max_per_seq", unsafe.Offsetof(cp.NOutputsMaxPerSeq), 24},
		{"ctx n_threads", unsafe.Offsetof(cp.NThreads), 28},
		{"ctx pooling_type", unsafe.Offsetof(cp.PoolingType), 44},
		{"ctx flash_attn_type", unsafe.Offsetof(cp.FlashAttnType), 52},
		{"ctx rope_freq_base", unsafe.Offsetof(cp.RopeFreqBase), 56},
		{"ctx yarn_orig_ctx", unsafe.Offsetof(cp.YarnOrigCtx), 80},
		{"ctx cb_eval", unsafe.Offsetof(cp.CbEval), 88},
		{"ctx type_k", unsafe.Offsetof(cp.TypeK), 104},
		{"ctx abort_callback", unsafe.Offsetof(cp.AbortCallback), 112},
		{"ctx abort_callback_data", unsafe.Offsetof(cp.AbortCallbackData), 120},
		{"ctx embeddings", unsafe.Offsetof(cp.Embeddings), 128},
		{"ctx kv_unified", unsafe.Offsetof(cp.KVUnified), 133},
		{"ctx samplers", unsafe.Offsetof(cp.Samplers), 136},
		{"ctx n_samplers", unsafe.Offsetof(cp.NSamplers), 144},
		{"ctx ctx_other", unsafe.Offsetof(cp.CtxOther), 152},
		{"sizeof llama_batch", unsafe.Sizeof(b), 56},
		{"batch token", unsafe.Offsetof(b.Token), 8},
		{"batch pos", unsafe.Offsetof(b.Pos), 24},
		{"batch seq_id", unsafe.Offsetof(b.SeqID), 40},
		{"batch logits", unsafe.Offsetof(b.Logits), 48},
		{"sizeof llama_chat_message", unsafe.Sizeof(cChatMessage{}), 16},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
}

// TestDefaultParams checks the defaults llama.cpp echoes back land in the
// right Go fields: a shifted field would show up as a nonsense value.
func TestDefaultParams(t *testing.T) {
	l := openLib(t)
	mp := l.fn.modelDefaultParams()
	if mp.Devices != 0 || mp.NGPULayers != -1 || mp.SplitMode != 1 || mp.LoadMode != -1 || mp.LazyMode != 1 ||
		mp.MainGPU != 0 || mp.VocabOnly || mp.CheckTensors || !mp.UseExtraBufts || mp.NoHost || mp.NoAlloc {
		t.Errorf("model defaults %+v", mp)
	}
	cp := l.fn.contextDefaultParams()
	if cp.NCtx != 512 || cp.NBatch != 2048 || cp.NUbatch != 512 || cp.NSeqMax != 1 || cp.NOutputsMaxPerSeq != 1 ||
		cp.NThreads <= 0 || cp.NThreadsBatch != cp.NThreads ||
		cp.RopeScalingType != -1 || cp.PoolingType != -1 || cp.AttentionType != -1 || cp.FlashAttnType != -1 ||
		cp.YarnExtFactor != -1 || cp.TypeK != 1 || cp.TypeV != 1 || cp.AbortCallback != 0 ||
		cp.Embeddings || !cp.OffloadKQV || !cp.OpOffload || cp.Samplers != 0 || cp.CtxOther != 0 {
		t.Errorf("context defaults %+v", cp)
	}
	t.Logf("model defaults %+v", mp)
	t.Logf("context defaults %+v", cp)
}
