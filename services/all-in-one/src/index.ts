// The all-in-one service is a composition root only; it exports nothing.
export {};
