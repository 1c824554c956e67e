// The cutoff is the store's: the retention job computes it the same way as the eviction route.
export { cutoffOf } from '@memstream/store';
