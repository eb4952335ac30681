/** Where the user types a device's user code (RFC 8628 verification_uri). */
export const DEVICE_PAGE = '/ui/login/device';
/** The consent step's path under /ui/login/ (behind the gate: it belongs to an auth request). */
export const DEVICE_CONSENT_STEP = 'device/consent';
export const DEVICE_DONE_PAGE = '/ui/login/device/done';

export const deviceConsentUrl = (authRequestId: string) =>
  `/ui/login/${DEVICE_CONSENT_STEP}?authRequest=${encodeURIComponent(authRequestId)}`;
