// Package docs is a doc.go of nothing but comments and its package clause:
// two tokens, fewer than one five-token shingle. Files like this collide by
// chance in LSH buckets; --min-tokens drops them.
package docs
