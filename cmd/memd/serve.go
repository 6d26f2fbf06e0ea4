package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/memd-dev/memd/internal/config"
	"github.com/memd-dev/memd/memory"
	"github.com/memd-dev/memd/pipeline"
	"github.com/memd-dev/memd/rank"
	"github.com/memd-dev/memd/server"
	"github.com/memd-dev/memd/vector"
)

// shutdownGrace bounds how long requests in flight may take to finish once
// memd is told to stop.
const shutdownGrace = 5 * time.Second

// serve runs the daemon until ctx ends: the store first (a second memd on
// the same data folder stops here), then the socket, then the indexer and
// the server side by side. On the way out the server stops taking requests,
// the indexer commits the transaction under way, and the store is closed.
//
// Models load after the socket is taken, so a second memd fails fast, and
// before the indexer starts, so its stages see them. Closing runs the other
// way: the indexer and server stop, then the vectors, the models, the store.
// The socket is taken from sock, which outlives this serve when a damaged
// store is rebuilt (serveRebuilding).
func serve(ctx context.Context, cfg config.Config, sock *daemonSocket, log *slog.Logger) error {
	if err := os.MkdirAll(cfg.Data, 0o700); err != nil {
		return fmt.Errorf("create data folder: %w", err)
	}
	db, err := openStore(ctx, cfg.Data, serveFlags.fullCheckMaxBytes, log)
	if err != nil {
		return err
	}
	defer db.Close()
	l, err := sock.take(cfg.Socket, log)
	if err != nil {
		return err
	}
	if w := server.SocketFolderWarning(cfg.Socket); w != "" {
		log.Warn(w)
	}
	m := loadModels(cfg, log)
	defer m.Close()
	vecs := vector.NewServing(db, vector.ServingConfig{Embedder: m.queryEmbedder(),
		OpenEmbedder: m.openPreviousEmbedder, Logger: log})
	defer vecs.Close()
	pcfg := pipeline.Config{MaxFileBytes: cfg.MaxFileBytes, Logger: log, Vectors: vecs}
	if m.generator != nil {
		pcfg.Generator = m.generator
	}
	if m.embedder != nil {
		pcfg.Embedder = m.embedder
	}
	ix := pipeline.NewIndexer(db, pcfg)
	svc := memory.New(memory.Config{DB: db, Indexer: ix, Version: memdVersion(), DataDir: cfg.Data,
		Vectors: vecs, Models: m.status, Reranker: m.recallReranker(),
		Fusion:      rank.Fusion{K: cfg.Recall.RRFK, BM25Weight: cfg.Recall.BM25Weight, VectorWeight: cfg.Recall.VectorWeight},
		VectorFloor: cfg.Recall.VectorFloor, Expand: cfg.Recall.Expand,
		Generator: m.chatGenerator(), Chat: memory.ChatOptions{MaxInFlight: cfg.Chat.MaxInFlight}})
	srv := server.NewServer(svc, server.Options{Logger: log, AllowedOrigins: serveFlags.origins,
		RecallInFlight: cfg.Recall.MaxInFlight, RecallQueue: cfg.Recall.Queue})
	tl, token, err := listenTCP(cfg, log)
	if err != nil {
		l.Close()
		return err
	}

	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		if err := ix.Run(gctx); err != nil {
			return fmt.Errorf("indexer: %w", err)
		}
		return nil
	})
	g.Go(func() error {
		if err := srv.Serve(l); err != nil {
			return fmt.Errorf("serve %s: %w", cfg.Socket, err)
		}
		return nil
	})
	if tl != nil {
		g.Go(func() error {
			if err := srv.ServeTCP(tl, token); err != nil {
				return describeTCP(cfg, err)
			}
			return nil
		})
	}
	g.Go(func() error {
		compactWhenWasteful(gctx, db, log)
		return nil
	})
	g.Go(func() error {
		// A transaction that finds the file damaged stops the daemon, to
		// be moved aside and rebuilt (serveRebuilding).
		select {
		case <-gctx.Done():
			return nil
		case <-db.Damaged():
			return db.DamageErr()
		}
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
	log.Info("memd is serving", "version", memdVersion(), "socket", cfg.Socket, "data", cfg.Data, "pid", os.Getpid())
	err = g.Wait()
	if derr := db.DamageErr(); derr != nil {
		// Whatever stopped first (the indexer may wrap the damage as text),
		// a damaged store is why: serveRebuilding moves it aside.
		return derr
	}
	if err == nil {
		log.Info("memd stopped cleanly")
	}
	return err
}
