/**
 * Why a client ID metadata document cannot be used. The message is shown to whoever presented the
 * client_id (the authorize error page, the token endpoint's invalid_client), so it names what is wrong
 * with the URL or the document and never anything about this server's network.
 */
export class MetadataProblem extends Error {}
