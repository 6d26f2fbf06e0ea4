package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/memd-dev/memd/api"
	"github.com/memd-dev/memd/memory"
	"github.com/memd-dev/memd/pipeline"
	"github.com/memd-dev/memd/store"
)

// shutdownGrace bounds how long requests in flight may take to finish once
// memd is told to stop.
const shutdownGrace = 5 * time.Second

// serve runs the daemon until ctx ends: the store first (a second memd on
// the same data folder stops here), then the socket, then the indexer and
// the server side by side. On the way out the server stops taking requests,
// the indexer commits the transaction under way, and the store is closed.
func serve(ctx context.Context, cfg config) error {
	log := cfg.logger()
	if err := os.MkdirAll(cfg.data, 0o700); err != nil {
		return fmt.Errorf("create data folder: %w", err)
	}
	db, err := store.Open(filepath.Join(cfg.data, "memd.db"), store.Options{})
	if err != nil {
		return err
	}
	defer db.Close()
	l, err := api.Listen(cfg.socket)
	if err != nil {
		return err
	}
	ix := pipeline.NewIndexer(db, pipeline.Config{MaxFileBytes: int64(cfg.maxFileBytes), Logger: log})
	svc := memory.New(memory.Config{DB: db, Indexer: ix, Version: memdVersion(), DataDir: cfg.data})
	srv := api.NewServer(svc, api.Options{Logger: log})

	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		if err := ix.Run(gctx); err != nil {
			return fmt.Errorf("indexer: %w", err)
		}
		return nil
	})
	g.Go(func() error {
		if err := srv.Serve(l); err != nil {
			return fmt.Errorf("serve %s: %w", cfg.socket, err)
		}
		return nil
	})
	g.Go(func() error {
		<-gctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil {
			log.Warn("requests still in flight were cut off", "err", err)
		}
		return nil
	})
	log.Info("memd is serving", "version", memdVersion(), "socket", cfg.socket, "data", cfg.data, "pid", os.Getpid())
	err = g.Wait()
	if err == nil {
		log.Info("memd stopped cleanly")
	}
	return err
}
