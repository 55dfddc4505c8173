// Generated from generated/openapi.json by `npm run generate`. Do not edit: change the source and regenerate.

/**
 * What the client runtime needs to know about each operation, by path template, then method.
 * Absent `binary` and `files`: none; absent `multipart`: false.
 */
export const operations = {
  "/api/v2/manual_eidv": {
    /** createManualVerification */
    POST: {"auth":"v2"},
  },
  "/api/v2/manual_eidv/{transaction_id}/export_and_archive": {
    /** exportAndArchiveManualVerification */
    PUT: {"auth":"v2","binary":["application/pdf"]},
  },
  "/api/v2/manual_eidv/{transaction_id}/assets/pep_watchlist": {
    /** getManualPepWatchlist */
    GET: {"auth":"v2","binary":["application/pdf"]},
  },
  "/api/v2/send_text": {
    /** createBiometricVerification */
    POST: {"auth":"v2"},
  },
  "/api/v2/resend_text/{transaction_id}": {
    /** resendBiometricVerification */
    PUT: {"auth":"v2"},
  },
  "/api/v2/biometric/pdf/{transaction_id}.pdf": {
    /** getBiometricPdf */
    GET: {"auth":"v2","binary":["application/pdf"]},
  },
  "/api/v4/search_property": {
    /** searchProperty */
    POST: {"auth":"v4"},
  },
  "/api/v4/properties": {
    /** createPropertyVerification */
    POST: {"auth":"v4"},
  },
  "/api/v4/pdf/properties/{id}/oov": {
    /** getOnlineOwnershipPdf */
    GET: {"auth":"v4","binary":["application/pdf"]},
  },
  "/api/v4/properties/{id}/res": {
    /** getTitleSearchDocument */
    GET: {"auth":"v4","binary":["application/pdf","application/zip"]},
  },
  "/api/v4/pep_checks": {
    /** createPepCheck */
    POST: {"auth":"v4"},
  },
  "/api/v4/pdf/pep_checks/{id}": {
    /** getPepCheckPdf */
    GET: {"auth":"v4","binary":["application/pdf"]},
  },
  "/api/v4/fraud_analytics": {
    /** createFraudAnalytic */
    POST: {"auth":"v4"},
  },
  "/api/v4/outsource_cases": {
    /** createEddCase */
    POST: {"auth":"v4"},
  },
  "/api/v4/outsource_cases/{id}": {
    /** getEddCase */
    GET: {"auth":"v4"},
  },
  "/api/v4/outsource_cases/{id}/status": {
    /** updateEddCaseStatus */
    PATCH: {"auth":"v4"},
  },
  "/api/v4/outsource_cases/{id}/upload": {
    /** uploadEddCaseFile */
    POST: {"auth":"v4","multipart":true,"files":[{"part":"file","maxBytesExclusive":10485760,"mediaTypes":["image/png","image/jpeg","text/plain","application/pdf"],"extensions":["png","jpg","jpeg","txt","pdf"]}]},
  },
  "/api/v4/kyb_verifications/companies": {
    /** searchKybCompanies */
    POST: {"auth":"v4"},
  },
  "/api/v4/kyb_verifications": {
    /** createKybVerification */
    POST: {"auth":"v4"},
  },
  "/api/v4/pdf/kyb_verifications/{id}": {
    /** getKybVerificationPdf */
    GET: {"auth":"v4","binary":["application/pdf"]},
  },
} as const;

/** Every error code the contract names (error_type of shape A, error_code of shape B). */
export const errorCodes: readonly string[] = ["ALREADY_ARCHIVED","ASSET_FAILED","AUTHENTICATION","AUTHORIZATION","AUTH_FAILED","CRED_AT_RISK","FILE_SIZE_TOO_BIG","FORBIDDEN","NOT_COMPLETED","NOT_CREATED","NOT_FOUND","NO_FILE_UPLOADED","SMS_FAIL","SYSTEM","VALIDATION","VALIDATION_FAILED"];

/** By method, the paths whose operation answers with a file (non-empty `binary`): what `download()` takes. */
export type DownloadPaths = {
  put: "/api/v2/manual_eidv/{transaction_id}/export_and_archive";
  get: "/api/v2/manual_eidv/{transaction_id}/assets/pep_watchlist" | "/api/v2/biometric/pdf/{transaction_id}.pdf" | "/api/v4/pdf/properties/{id}/oov" | "/api/v4/properties/{id}/res" | "/api/v4/pdf/pep_checks/{id}" | "/api/v4/pdf/kyb_verifications/{id}";
};

/** By method, the paths whose operation takes a file with constraints (non-empty `files`): what `upload()` takes. */
export type UploadPaths = {
  post: "/api/v4/outsource_cases/{id}/upload";
};
