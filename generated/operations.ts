// Generated from generated/openapi.json by `npm run generate`. Do not edit: change the source and regenerate.

/** What the client runtime needs to know about each operation, keyed "METHOD /path". */
export const operations = {
  /** createManualVerification */
  "POST /api/v2/manual_eidv": {"auth":"v2","binary":[],"multipart":false,"files":[]},
  /** exportAndArchiveManualVerification */
  "PUT /api/v2/manual_eidv/{transaction_id}/export_and_archive": {"auth":"v2","binary":["application/pdf"],"multipart":false,"files":[]},
  /** getManualPepWatchlist */
  "GET /api/v2/manual_eidv/{transaction_id}/assets/pep_watchlist": {"auth":"v2","binary":["application/pdf"],"multipart":false,"files":[]},
  /** createBiometricVerification */
  "POST /api/v2/send_text": {"auth":"v2","binary":[],"multipart":false,"files":[]},
  /** resendBiometricVerification */
  "PUT /api/v2/resend_text/{transaction_id}": {"auth":"v2","binary":[],"multipart":false,"files":[]},
  /** getBiometricPdf */
  "GET /api/v2/biometric/pdf/{transaction_id}.pdf": {"auth":"v2","binary":["application/pdf"],"multipart":false,"files":[]},
  /** searchProperty */
  "POST /api/v4/search_property": {"auth":"v4","binary":[],"multipart":false,"files":[]},
  /** createPropertyVerification */
  "POST /api/v4/properties": {"auth":"v4","binary":[],"multipart":false,"files":[]},
  /** getOnlineOwnershipPdf */
  "GET /api/v4/pdf/properties/{id}/oov": {"auth":"v4","binary":["application/pdf"],"multipart":false,"files":[]},
  /** getTitleSearchDocument */
  "GET /api/v4/properties/{id}/res": {"auth":"v4","binary":["application/pdf","application/zip"],"multipart":false,"files":[]},
  /** createPepCheck */
  "POST /api/v4/pep_checks": {"auth":"v4","binary":[],"multipart":false,"files":[]},
  /** getPepCheckPdf */
  "GET /api/v4/pdf/pep_checks/{id}": {"auth":"v4","binary":["application/pdf"],"multipart":false,"files":[]},
  /** createFraudAnalytic */
  "POST /api/v4/fraud_analytics": {"auth":"v4","binary":[],"multipart":false,"files":[]},
  /** createEddCase */
  "POST /api/v4/outsource_cases": {"auth":"v4","binary":[],"multipart":false,"files":[]},
  /** getEddCase */
  "GET /api/v4/outsource_cases/{id}": {"auth":"v4","binary":[],"multipart":false,"files":[]},
  /** updateEddCaseStatus */
  "PATCH /api/v4/outsource_cases/{id}/status": {"auth":"v4","binary":[],"multipart":false,"files":[]},
  /** uploadEddCaseFile */
  "POST /api/v4/outsource_cases/{id}/upload": {"auth":"v4","binary":[],"multipart":true,"files":[{"part":"file","maxBytesExclusive":10485760,"mediaTypes":["image/png","image/jpeg","text/plain","application/pdf"],"extensions":["png","jpg","jpeg","txt","pdf"]}]},
  /** searchKybCompanies */
  "POST /api/v4/kyb_verifications/companies": {"auth":"v4","binary":[],"multipart":false,"files":[]},
  /** createKybVerification */
  "POST /api/v4/kyb_verifications": {"auth":"v4","binary":[],"multipart":false,"files":[]},
  /** getKybVerificationPdf */
  "GET /api/v4/pdf/kyb_verifications/{id}": {"auth":"v4","binary":["application/pdf"],"multipart":false,"files":[]},
} as const;

/** The key of an operation: its method and path template. */
export type OperationKey = keyof typeof operations;
