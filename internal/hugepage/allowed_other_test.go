//go:build !linux

package hugepage

func madviseAllowed() error { return nil }
