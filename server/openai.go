package server

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/memd-dev/memd"
)

// The OpenAI-compatible routes follow the API as its clients use it: the
// request fields they send (unknown ones are ignored, since clients add
// fields over time), streaming chunks ending with "data: [DONE]", and
// usage. memd's own additions travel in a "memd" field.

// oaChatRequest is the body of POST /v1/chat/completions.
type oaChatRequest struct {
	Model         string      `json:"model"`
	Messages      []oaMessage `json:"messages"`
	Stream        bool        `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	MaxTokens           *int   `json:"max_tokens"`
	MaxCompletionTokens *int   `json:"max_completion_tokens"`
	Stop                oaStop `json:"stop"`
	N                   *int   `json:"n"`
	Tools               []any  `json:"tools"`
	oaSampling
	// Memd asks for chat with memory whatever the model, and tunes it.
	Memd *oaMemd `json:"memd"`
}

// oaMemd is memd's extension of a chat completion request.
type oaMemd struct {
	Memory    *bool        `json:"memory"` // default true once the field is sent
	K         int          `json:"k"`
	Filters   memd.Filters `json:"filters"`
	SessionID string       `json:"session_id"`
}

type oaMessage struct {
	Role    string    `json:"role"`
	Content oaContent `json:"content"`
}

// oaContent is a message's content: a string, or an array of parts of
// which the text parts are kept.
type oaContent string

func (c *oaContent) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*c = ""
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*c = oaContent(s)
		return nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(b, &parts); err != nil {
		return errors.New("content must be a string or an array of text parts")
	}
	var texts []string
	for _, p := range parts {
		if p.Type != "text" {
			return fmt.Errorf("content part of type %q is not supported; memd's models read text only", p.Type)
		}
		texts = append(texts, p.Text)
	}
	*c = oaContent(strings.Join(texts, "\n"))
	return nil
}

// oaStop is a stop string or a list of them.
type oaStop []string

func (s *oaStop) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*s = oaStop{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return errors.New("stop must be a string or an array of strings")
	}
	*s = many
	return nil
}

// decodeLenient reads one JSON value, allowing fields memd does not know.
func decodeLenient(r *http.Request, v any) *memd.Error {
	err := json.NewDecoder(r.Body).Decode(v)
	if errors.Is(err, io.EOF) {
		return errorf(http.StatusBadRequest, memd.CodeBadRequest, "the request body is empty; send a JSON object")
	}
	if err != nil {
		return jsonError(err)
	}
	return nil
}

// chatRequest turns an OpenAI request into memd's.
func (o *oaChatRequest) chatRequest() (memd.ChatRequest, *memd.Error) {
	bad := func(format string, args ...any) (memd.ChatRequest, *memd.Error) {
		return memd.ChatRequest{}, errorf(http.StatusBadRequest, memd.CodeBadRequest, format, args...)
	}
	if o.N != nil && *o.N != 1 {
		return bad(`"n" is %d; memd answers one choice per request`, *o.N)
	}
	if len(o.Tools) > 0 {
		return bad(`"tools" are not supported by memd's chat; leave them out`)
	}
	req := memd.ChatRequest{Stop: o.Stop}
	for i, m := range o.Messages {
		role := m.Role
		if role == "developer" {
			role = memd.RoleSystem
		}
		switch role {
		case memd.RoleSystem, memd.RoleUser, memd.RoleAssistant:
		default:
			return bad(`messages[%d] has role %q; memd takes "system", "developer", "user" and "assistant"`, i, m.Role)
		}
		req.Messages = append(req.Messages, memd.Message{Role: role, Content: string(m.Content)})
	}
	switch {
	case o.MaxCompletionTokens != nil:
		req.MaxTokens = *o.MaxCompletionTokens
	case o.MaxTokens != nil:
		req.MaxTokens = *o.MaxTokens
	}
	o.oaSampling.applyTo(&req.Sampling)
	useMemory := o.Model == memd.ModelChat
	if o.Memd != nil {
		useMemory = o.Memd.Memory == nil || *o.Memd.Memory
		req.K, req.Filters, req.SessionID = o.Memd.K, o.Memd.Filters, o.Memd.SessionID
	}
	req.Memory = &useMemory
	return req, nil
}

// The answer's shapes.
type (
	oaCompletion struct {
		ID      string     `json:"id"`
		Object  string     `json:"object"`
		Created int64      `json:"created"`
		Model   string     `json:"model"`
		Choices []oaChoice `json:"choices"`
		Usage   *oaUsage   `json:"usage,omitempty"`
		Memd    *oaMemdOut `json:"memd,omitempty"`
	}
	oaChoice struct {
		Index        int       `json:"index"`
		Message      *oaOut    `json:"message,omitempty"`
		Delta        *oaOut    `json:"delta,omitempty"`
		FinishReason *string   `json:"finish_reason"`
		Logprobs     *struct{} `json:"logprobs"`
	}
	oaOut struct {
		Role    string  `json:"role,omitempty"`
		Content *string `json:"content,omitempty"`
	}
	oaUsage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	}
	oaMemdOut struct {
		Sources   []memd.Source     `json:"sources,omitempty"`
		Citations []memd.Citation   `json:"citations,omitempty"`
		Timings   *memd.ChatTimings `json:"timings,omitempty"`
		Warnings  []string          `json:"warnings,omitempty"`
	}
)

func usageOf(u memd.Usage) *oaUsage {
	return &oaUsage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.PromptTokens + u.CompletionTokens}
}

// finishReason is OpenAI's name for why the answer ended.
func finishReason(f string) *string {
	r := "stop"
	if f == memd.FinishLength {
		r = "length"
	}
	return &r
}

// completionID is a random id for an answer, after OpenAI's prefix for
// its kind ("chatcmpl-", "cmpl-").
func completionID(prefix string) string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// POST /v1/chat/completions: chat in OpenAI's shape. Memory is added when
// the model is "memd" or the request has a "memd" field; any other model
// name is a plain chat with the generator.
func chatCompletions(s *Server) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		var o oaChatRequest
		if e := decodeLenient(r, &o); e != nil {
			return e
		}
		req, e := o.chatRequest()
		if e != nil {
			return e
		}
		base := oaCompletion{ID: completionID("chatcmpl-"), Created: time.Now().Unix(), Model: o.Model}
		if !o.Stream {
			ctx, cancel := s.chatContext(w, r)
			defer cancel()
			res, err := s.svc.Chat(ctx, req, nil)
			if err != nil {
				return s.chatError(ctx, err)
			}
			out := base
			out.Object, out.Model = "chat.completion", modelOr(o.Model, res.Model)
			content := res.Message.Content
			out.Choices = []oaChoice{{Message: &oaOut{Role: memd.RoleAssistant, Content: &content}, FinishReason: finishReason(res.Finish)}}
			out.Usage = usageOf(res.Usage)
			out.Memd = &oaMemdOut{Sources: res.Sources, Citations: res.Citations, Timings: &res.Timings, Warnings: res.Warnings}
			writeJSON(w, http.StatusOK, out)
			return nil
		}
		return s.streamCompletion(w, r, req, base, o.StreamOptions != nil && o.StreamOptions.IncludeUsage)
	}
}

// streamCompletion answers with chat.completion.chunk events: the first
// carries the role (and memd's sources), then one per piece of text, then
// the finish reason, usage when asked for, and [DONE].
func (s *Server) streamCompletion(w http.ResponseWriter, r *http.Request, req memd.ChatRequest, base oaCompletion, withUsage bool) error {
	ctx, cancel := s.chatContext(w, r)
	defer cancel()
	base.Object = "chat.completion.chunk"
	chunk := func(st *sseStream, delta oaOut, finish *string, extra *oaMemdOut) error {
		c := base
		c.Choices = []oaChoice{{Delta: &delta, FinishReason: finish}}
		c.Memd = extra
		return st.event("", c)
	}
	st, res, err := s.streamChat(ctx, w, req, "", func(st *sseStream, ev memd.ChatEvent) error {
		if ev.Type == memd.ChatSources {
			empty := ""
			var extra *oaMemdOut
			if len(ev.Sources) > 0 {
				extra = &oaMemdOut{Sources: ev.Sources}
			}
			return chunk(st, oaOut{Role: memd.RoleAssistant, Content: &empty}, nil, extra)
		}
		piece := ev.Delta
		return chunk(st, oaOut{Content: &piece}, nil, nil)
	})
	if st == nil {
		return err
	}
	defer st.end()
	if base.Model == "" {
		base.Model = res.Model
	}
	extra := &oaMemdOut{Citations: res.Citations, Timings: &res.Timings, Warnings: res.Warnings}
	if chunk(st, oaOut{}, finishReason(res.Finish), extra) != nil {
		return nil
	}
	if withUsage {
		u := base
		u.Choices, u.Usage = []oaChoice{}, usageOf(res.Usage)
		if st.event("", u) != nil {
			return nil
		}
	}
	_ = st.raw([]byte("data: [DONE]\n\n"))
	return nil
}

func modelOr(asked, served string) string {
	if asked != "" {
		return asked
	}
	return served
}

// oaEmbedRequest is the body of POST /v1/embeddings.
type oaEmbedRequest struct {
	Input          json.RawMessage `json:"input"`
	Model          string          `json:"model"`
	EncodingFormat string          `json:"encoding_format"`
	Dimensions     *int            `json:"dimensions"`
}

type (
	oaEmbeddings struct {
		Object string        `json:"object"`
		Data   []oaEmbedding `json:"data"`
		Model  string        `json:"model"`
		Usage  oaEmbedUsage  `json:"usage"`
	}
	oaEmbedding struct {
		Object    string `json:"object"`
		Index     int    `json:"index"`
		Embedding any    `json:"embedding"` // []float32, or a base64 string of little-endian float32s
	}
	oaEmbedUsage struct {
		PromptTokens int `json:"prompt_tokens"`
		TotalTokens  int `json:"total_tokens"`
	}
)

// inputs reads "input": one string or an array of strings. Token arrays
// are refused: they would be tokens of some other model's vocabulary.
func (o *oaEmbedRequest) inputs() ([]string, *memd.Error) {
	in := bytes.TrimSpace(o.Input)
	var one string
	if json.Unmarshal(in, &one) == nil {
		return []string{one}, nil
	}
	var many []string
	if json.Unmarshal(in, &many) == nil {
		return many, nil
	}
	return nil, errorf(http.StatusBadRequest, memd.CodeBadRequest,
		`"input" must be a string or an array of strings (token arrays are not supported)`)
}

// POST /v1/embeddings: the daemon's embedder over the inputs as they are.
func embeddings(svc Service) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		var o oaEmbedRequest
		if e := decodeLenient(r, &o); e != nil {
			return e
		}
		texts, e := o.inputs()
		if e != nil {
			return e
		}
		switch o.EncodingFormat {
		case "", "float", "base64":
		default:
			return errorf(http.StatusBadRequest, memd.CodeBadRequest, `"encoding_format" is %q; send "float" or "base64"`, o.EncodingFormat)
		}
		res, err := svc.Embed(r.Context(), texts)
		if err != nil {
			return err
		}
		if o.Dimensions != nil && len(res.Vectors) > 0 && *o.Dimensions != len(res.Vectors[0]) {
			return errorf(http.StatusBadRequest, memd.CodeBadRequest, `"dimensions" is %d; the embedder %s gives %d`,
				*o.Dimensions, res.Model, len(res.Vectors[0]))
		}
		out := oaEmbeddings{Object: "list", Model: modelOr(o.Model, res.Model), Data: make([]oaEmbedding, len(res.Vectors)),
			Usage: oaEmbedUsage{PromptTokens: res.Tokens, TotalTokens: res.Tokens}}
		for i, v := range res.Vectors {
			out.Data[i] = oaEmbedding{Object: "embedding", Index: i, Embedding: v}
			if o.EncodingFormat == "base64" {
				out.Data[i].Embedding = base64Floats(v)
			}
		}
		writeJSON(w, http.StatusOK, out)
		return nil
	}
}

type oaModel struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
	Memd    struct {
		Role string `json:"role"`
		Path string `json:"path,omitempty"`
	} `json:"memd"`
}

type oaModelList struct {
	Object string    `json:"object"`
	Data   []oaModel `json:"data"`
}

func oaModelOf(m memd.Model) oaModel {
	out := oaModel{ID: m.ID, Object: "model", Created: m.Created.Unix(), OwnedBy: "memd"}
	out.Memd.Role, out.Memd.Path = m.Role, m.Path
	return out
}

// GET /v1/models, and GET /v1/models/{id} for one of them.
func models(svc Service) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		list, err := svc.Models(r.Context())
		if err != nil {
			return err
		}
		if id, ok := strings.CutPrefix(r.URL.Path, "/v1/models/"); ok {
			for _, m := range list {
				if m.ID == id {
					writeJSON(w, http.StatusOK, oaModelOf(m))
					return nil
				}
			}
			return errorf(http.StatusNotFound, memd.CodeNotFound, "memd has no model %q; GET /v1/models lists them", id)
		}
		out := oaModelList{Object: "list", Data: []oaModel{}}
		for _, m := range list {
			out.Data = append(out.Data, oaModelOf(m))
		}
		writeJSON(w, http.StatusOK, out)
		return nil
	}
}

// base64Floats encodes a vector as OpenAI's base64 format does: the
// float32 values little-endian, back to back.
func base64Floats(v []float32) string {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return base64.StdEncoding.EncodeToString(b)
}
