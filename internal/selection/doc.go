// Package selection finds order statistics without sorting: the k-th
// largest of a list of values in linear expected time.
package selection
