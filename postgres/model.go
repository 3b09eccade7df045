package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// ErrNoModel is returned by Model when no model is stored under the name.
var ErrNoModel = errors.New("no model stored under this name")

// SaveModel stores model under name unless one is stored already, and
// returns the stored one: processes that trained at once all use the
// model of the first to store it.
func (s *Store) SaveModel(ctx context.Context, name string, model []byte) ([]byte, error) {
	var out []byte
	err := s.retry(ctx, func() error {
		return s.pool.QueryRow(ctx, `WITH ins AS (INSERT INTO models(name, model) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING RETURNING model)
			SELECT model FROM ins UNION ALL SELECT model FROM models WHERE name = $1 LIMIT 1`, name, model).Scan(&out)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		// Another process stored one after this statement's snapshot.
		return s.Model(ctx, name)
	}
	if err != nil {
		return nil, fmt.Errorf("save model %s: %w", name, err)
	}
	return out, nil
}

// Model returns the model stored under name, or ErrNoModel.
func (s *Store) Model(ctx context.Context, name string) ([]byte, error) {
	var out []byte
	err := s.retry(ctx, func() error {
		return s.pool.QueryRow(ctx, `SELECT model FROM models WHERE name = $1`, name).Scan(&out)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("model %s: %w", name, ErrNoModel)
	}
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", name, err)
	}
	return out, nil
}

// ModelOnce returns the model stored under name or, when there is none,
// the one train makes, stored under name. Processes starting at once
// train once: the others wait (on an advisory lock held by the training
// one) and get its model.
//
// A server lost before the lock is taken is waited for as any store
// operation (Options.MaxOutage). One lost while this process trains takes
// the lock with it: another process may then train too, and SaveModel
// keeps the first model stored, which every process returns.
func (s *Store) ModelOnce(ctx context.Context, name string, train func() ([]byte, error)) ([]byte, error) {
	key := lockKey("model", name)
	var conn *pgxpool.Conn
	err := s.retry(ctx, func() error {
		c, err := s.pool.Acquire(ctx)
		if err != nil {
			return err
		}
		if _, err := c.Exec(ctx, `SELECT pg_advisory_lock($1)`, key); err != nil {
			c.Release()
			return err
		}
		conn = c
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", name, err)
	}
	defer conn.Release()
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, key)
	m, err := s.Model(ctx, name)
	if !errors.Is(err, ErrNoModel) {
		return m, err
	}
	b, err := train()
	if err != nil {
		return nil, err
	}
	return s.SaveModel(ctx, name, b)
}
