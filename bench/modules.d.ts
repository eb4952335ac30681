// These two packages ship no type declarations; the benchmark uses a small part of each.
declare module 'autocannon';
declare module 'oidc-provider';
