package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// ErrNoModel is returned by Model when no model is stored under the name.
var ErrNoModel = errors.New("no model stored under this name")

// SaveModel stores model under name unless one is stored already, and
// returns the stored one: processes that trained at once all use the
// model of the first to store it.
func (s *Store) SaveModel(ctx context.Context, name string, model []byte) ([]byte, error) {
	var out []byte
	err := s.pool.QueryRow(ctx, `WITH ins AS (INSERT INTO models(name, model) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING RETURNING model)
		SELECT model FROM ins UNION ALL SELECT model FROM models WHERE name = $1 LIMIT 1`, name, model).Scan(&out)
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
	err := s.pool.QueryRow(ctx, `SELECT model FROM models WHERE name = $1`, name).Scan(&out)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("model %s: %w", name, ErrNoModel)
	}
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", name, err)
	}
	return out, nil
}
