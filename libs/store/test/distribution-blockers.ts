export { blockersOf } from '@memstream/store';
