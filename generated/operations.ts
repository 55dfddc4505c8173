// Generated from generated/openapi.json by `npm run generate`. Do not edit: change the source and regenerate.

/** What the client runtime needs to know about each operation, keyed "METHOD /path". */
export const operations = {
  "POST /api/v2/manual_eidv": {
    "operationId": "createManualVerification",
    "method": "POST",
    "path": "/api/v2/manual_eidv",
    "auth": "v2",
    "headers": [
      "Svc-API-Key",
      "Svc-Secret"
    ],
    "binary": [],
    "multipart": false,
    "files": []
  },
  "PUT /api/v2/manual_eidv/{transaction_id}/export_and_archive": {
    "operationId": "exportAndArchiveManualVerification",
    "method": "PUT",
    "path": "/api/v2/manual_eidv/{transaction_id}/export_and_archive",
    "auth": "v2",
    "headers": [
      "Svc-API-Key",
      "Svc-Secret"
    ],
    "binary": [
      "application/pdf"
    ],
    "multipart": false,
    "files": []
  },
  "GET /api/v2/manual_eidv/{transaction_id}/assets/pep_watchlist": {
    "operationId": "getManualPepWatchlist",
    "method": "GET",
    "path": "/api/v2/manual_eidv/{transaction_id}/assets/pep_watchlist",
    "auth": "v2",
    "headers": [
      "Svc-API-Key",
      "Svc-Secret"
    ],
    "binary": [
      "application/pdf"
    ],
    "multipart": false,
    "files": []
  },
  "POST /api/v2/send_text": {
    "operationId": "createBiometricVerification",
    "method": "POST",
    "path": "/api/v2/send_text",
    "auth": "v2",
    "headers": [
      "Svc-API-Key",
      "Svc-Secret"
    ],
    "binary": [],
    "multipart": false,
    "files": []
  },
  "PUT /api/v2/resend_text/{transaction_id}": {
    "operationId": "resendBiometricVerification",
    "method": "PUT",
    "path": "/api/v2/resend_text/{transaction_id}",
    "auth": "v2",
    "headers": [
      "Svc-API-Key",
      "Svc-Secret"
    ],
    "binary": [],
    "multipart": false,
    "files": []
  },
  "GET /api/v2/biometric/pdf/{transaction_id}.pdf": {
    "operationId": "getBiometricPdf",
    "method": "GET",
    "path": "/api/v2/biometric/pdf/{transaction_id}.pdf",
    "auth": "v2",
    "headers": [
      "Svc-API-Key",
      "Svc-Secret"
    ],
    "binary": [
      "application/pdf"
    ],
    "multipart": false,
    "files": []
  },
  "POST /api/v4/search_property": {
    "operationId": "searchProperty",
    "method": "POST",
    "path": "/api/v4/search_property",
    "auth": "v4",
    "headers": [
      "Svc-API-Key",
      "Svc-Date",
      "Svc-Signature"
    ],
    "binary": [],
    "multipart": false,
    "files": []
  },
  "POST /api/v4/properties": {
    "operationId": "createPropertyVerification",
    "method": "POST",
    "path": "/api/v4/properties",
    "auth": "v4",
    "headers": [
      "Svc-API-Key",
      "Svc-Date",
      "Svc-Signature"
    ],
    "binary": [],
    "multipart": false,
    "files": []
  },
  "GET /api/v4/pdf/properties/{id}/oov": {
    "operationId": "getOnlineOwnershipPdf",
    "method": "GET",
    "path": "/api/v4/pdf/properties/{id}/oov",
    "auth": "v4",
    "headers": [
      "Svc-API-Key",
      "Svc-Date",
      "Svc-Signature"
    ],
    "binary": [
      "application/pdf"
    ],
    "multipart": false,
    "files": []
  },
  "GET /api/v4/properties/{id}/res": {
    "operationId": "getTitleSearchDocument",
    "method": "GET",
    "path": "/api/v4/properties/{id}/res",
    "auth": "v4",
    "headers": [
      "Svc-API-Key",
      "Svc-Date",
      "Svc-Signature"
    ],
    "binary": [
      "application/pdf",
      "application/zip"
    ],
    "multipart": false,
    "files": []
  },
  "POST /api/v4/pep_checks": {
    "operationId": "createPepCheck",
    "method": "POST",
    "path": "/api/v4/pep_checks",
    "auth": "v4",
    "headers": [
      "Svc-API-Key",
      "Svc-Date",
      "Svc-Signature"
    ],
    "binary": [],
    "multipart": false,
    "files": []
  },
  "GET /api/v4/pdf/pep_checks/{id}": {
    "operationId": "getPepCheckPdf",
    "method": "GET",
    "path": "/api/v4/pdf/pep_checks/{id}",
    "auth": "v4",
    "headers": [
      "Svc-API-Key",
      "Svc-Date",
      "Svc-Signature"
    ],
    "binary": [
      "application/pdf"
    ],
    "multipart": false,
    "files": []
  },
  "POST /api/v4/fraud_analytics": {
    "operationId": "createFraudAnalytic",
    "method": "POST",
    "path": "/api/v4/fraud_analytics",
    "auth": "v4",
    "headers": [
      "Svc-API-Key",
      "Svc-Date",
      "Svc-Signature"
    ],
    "binary": [],
    "multipart": false,
    "files": []
  },
  "POST /api/v4/outsource_cases": {
    "operationId": "createEddCase",
    "method": "POST",
    "path": "/api/v4/outsource_cases",
    "auth": "v4",
    "headers": [
      "Svc-API-Key",
      "Svc-Date",
      "Svc-Signature"
    ],
    "binary": [],
    "multipart": false,
    "files": []
  },
  "GET /api/v4/outsource_cases/{id}": {
    "operationId": "getEddCase",
    "method": "GET",
    "path": "/api/v4/outsource_cases/{id}",
    "auth": "v4",
    "headers": [
      "Svc-API-Key",
      "Svc-Date",
      "Svc-Signature"
    ],
    "binary": [],
    "multipart": false,
    "files": []
  },
  "PATCH /api/v4/outsource_cases/{id}/status": {
    "operationId": "updateEddCaseStatus",
    "method": "PATCH",
    "path": "/api/v4/outsource_cases/{id}/status",
    "auth": "v4",
    "headers": [
      "Svc-API-Key",
      "Svc-Date",
      "Svc-Signature"
    ],
    "binary": [],
    "multipart": false,
    "files": []
  },
  "POST /api/v4/outsource_cases/{id}/upload": {
    "operationId": "uploadEddCaseFile",
    "method": "POST",
    "path": "/api/v4/outsource_cases/{id}/upload",
    "auth": "v4",
    "headers": [
      "Svc-API-Key",
      "Svc-Date",
      "Svc-Signature"
    ],
    "binary": [],
    "multipart": true,
    "files": [
      {
        "part": "file",
        "maxBytesExclusive": 10485760,
        "mediaTypes": [
          "image/png",
          "image/jpeg",
          "text/plain",
          "application/pdf"
        ],
        "extensions": [
          "png",
          "jpg",
          "jpeg",
          "txt",
          "pdf"
        ]
      }
    ]
  },
  "POST /api/v4/kyb_verifications/companies": {
    "operationId": "searchKybCompanies",
    "method": "POST",
    "path": "/api/v4/kyb_verifications/companies",
    "auth": "v4",
    "headers": [
      "Svc-API-Key",
      "Svc-Date",
      "Svc-Signature"
    ],
    "binary": [],
    "multipart": false,
    "files": []
  },
  "POST /api/v4/kyb_verifications": {
    "operationId": "createKybVerification",
    "method": "POST",
    "path": "/api/v4/kyb_verifications",
    "auth": "v4",
    "headers": [
      "Svc-API-Key",
      "Svc-Date",
      "Svc-Signature"
    ],
    "binary": [],
    "multipart": false,
    "files": []
  },
  "GET /api/v4/pdf/kyb_verifications/{id}": {
    "operationId": "getKybVerificationPdf",
    "method": "GET",
    "path": "/api/v4/pdf/kyb_verifications/{id}",
    "auth": "v4",
    "headers": [
      "Svc-API-Key",
      "Svc-Date",
      "Svc-Signature"
    ],
    "binary": [
      "application/pdf"
    ],
    "multipart": false,
    "files": []
  }
} as const;

/** The key of an operation: its method and path template. */
export type OperationKey = keyof typeof operations;
