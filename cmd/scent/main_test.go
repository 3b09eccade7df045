package main

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

func TestResumable(t *testing.T) {
	err := fmt.Errorf("crawl: %w", resumable{context.Canceled})
	if !errors.Is(err, context.Canceled) || !errors.As(err, new(resumable)) {
		t.Errorf("%v: want a resumable interruption", err)
	}
	if errors.As(fmt.Errorf("grid: %w", context.Canceled), new(resumable)) {
		t.Error("a plain interruption reads as resumable")
	}
}
