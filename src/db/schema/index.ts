// The whole schema, one file per projection. drizzle-kit reads this file to generate migrations.
export * from './administrators';
export * from './applications';
export * from './events';
export * from './instances';
export * from './orgs';
export * from './projects';
export * from './users';
export * from './oidc';
export * from './sessions';
export * from './web-keys';
export * from './m2m';
export * from './factors';
export * from './identity-providers';
export * from './logout-deliveries';
export * from './pushed-requests';
export * from './device-authorizations';
