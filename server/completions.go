package server

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/memd-dev/memd"
)

// oaCompletionRequest is the body of POST /v1/completions, OpenAI's
// raw-prompt route as llama-server and Ollama serve it too.
type oaCompletionRequest struct {
	Model     string          `json:"model"`
	Prompt    json.RawMessage `json:"prompt"`
	Stream    bool            `json:"stream"`
	MaxTokens *int            `json:"max_tokens"`
	Stop      oaStop          `json:"stop"`
	N         *int            `json:"n"`
	oaSampling
}

// oaSampling is the sampling both OpenAI routes take, each field optional.
type oaSampling struct {
	Temperature *float32 `json:"temperature"`
	TopP        *float32 `json:"top_p"`
	Seed        *int64   `json:"seed"`
}

// applyTo sets the fields the request sent on sp, leaving the rest.
func (o oaSampling) applyTo(sp *memd.Sampling) {
	if o.Temperature != nil {
		sp.Temperature = *o.Temperature
	}
	if o.TopP != nil {
		sp.TopP = *o.TopP
	}
	if o.Seed != nil {
		sp.Seed = uint64(*o.Seed)
	}
}

// completionRequest turns an OpenAI request into memd's. "prompt" is a
// string or an array of one string (token arrays would be another
// model's vocabulary).
func (o *oaCompletionRequest) completionRequest() (memd.CompletionRequest, *memd.Error) {
	bad := func(format string, args ...any) (memd.CompletionRequest, *memd.Error) {
		return memd.CompletionRequest{}, errorf(http.StatusBadRequest, memd.CodeBadRequest, format, args...)
	}
	if o.N != nil && *o.N != 1 {
		return bad(`"n" is %d; memd answers one choice per request`, *o.N)
	}
	var req memd.CompletionRequest
	if json.Unmarshal(o.Prompt, &req.Prompt) != nil {
		var many []string
		if json.Unmarshal(o.Prompt, &many) != nil || len(many) != 1 {
			return bad(`"prompt" must be a string (or an array of one string)`)
		}
		req.Prompt = many[0]
	}
	req.Stop = o.Stop
	if o.MaxTokens != nil {
		req.MaxTokens = *o.MaxTokens
	}
	o.oaSampling.applyTo(&req.Sampling)
	return req, nil
}

type (
	oaTextCompletion struct {
		ID      string         `json:"id"`
		Object  string         `json:"object"`
		Created int64          `json:"created"`
		Model   string         `json:"model"`
		Choices []oaTextChoice `json:"choices"`
		Usage   *oaUsage       `json:"usage,omitempty"`
	}
	oaTextChoice struct {
		Text         string    `json:"text"`
		Index        int       `json:"index"`
		Logprobs     *struct{} `json:"logprobs"`
		FinishReason *string   `json:"finish_reason"`
	}
)

// POST /v1/completions: the generator continues the prompt as it is, with
// no template and no memory; with "stream", text_completion chunks end
// with the finish reason and "data: [DONE]".
func completions(s *Server) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		var o oaCompletionRequest
		if e := decodeLenient(r, &o); e != nil {
			return e
		}
		req, e := o.completionRequest()
		if e != nil {
			return e
		}
		ctx, cancel := s.chatContext(w, r)
		defer cancel()
		base := oaTextCompletion{ID: completionID("cmpl-"), Object: "text_completion", Created: time.Now().Unix(), Model: o.Model}
		if !o.Stream {
			res, err := s.svc.Complete(ctx, req, nil)
			if err != nil {
				return s.chatError(ctx, err)
			}
			base.Model = modelOr(o.Model, res.Model)
			base.Choices = []oaTextChoice{{Text: res.Text, FinishReason: finishReason(res.Finish)}}
			base.Usage = usageOf(res.Usage)
			writeJSON(w, http.StatusOK, base)
			return nil
		}
		var st *sseStream
		chunk := func(text string, finish *string) error {
			c := base
			c.Choices = []oaTextChoice{{Text: text, FinishReason: finish}}
			return st.event("", c)
		}
		res, err := s.svc.Complete(ctx, req, func(piece string) error {
			if st == nil {
				var err error
				if st, err = startSSE(w); err != nil {
					return err
				}
			}
			return chunk(piece, nil)
		})
		if st == nil {
			if err != nil {
				return s.chatError(ctx, err)
			}
			if st, err = startSSE(w); err != nil {
				return err
			}
		}
		defer st.end()
		if err != nil {
			_ = st.event("", memd.ErrorBody{Error: asError(s.chatError(ctx, err))})
			return nil
		}
		base.Model = modelOr(o.Model, res.Model)
		if chunk("", finishReason(res.Finish)) == nil {
			_ = st.raw([]byte("data: [DONE]\n\n"))
		}
		return nil
	}
}
