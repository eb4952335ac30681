/**
 * @simplewebauthn/server, loaded by the first passkey or security-key ceremony. With the X.509 and
 * ASN.1 libraries it brings (some two hundred modules) it would otherwise take several megabytes in
 * every server process from its start, and in the cluster primary, which never runs a ceremony.
 */
export const webauthnLibrary = () => import('@simplewebauthn/server');
