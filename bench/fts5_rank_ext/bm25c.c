/*
** bm25c: FTS5's bm25() with each phrase's row count given by the caller.
**
** FTS5's built-in bm25() counts, on the first row of every statement, the rows
** that match each phrase of the query (xQueryPhrase over the whole table) to
** compute its IDF. With many phrases or common words that recount is a large
** share of a query's CPU. bm25c(tbl, w0..w{nCol-1}, n0..n{nPhrase-1}) takes the
** column weights as bm25() does, then each phrase's row count (NULL: counted as
** bm25() counts it; negative: the phrase matches only columns of weight 0, so its
** term is 0 and its instances are not walked), and computes the very same score: the same formula, in the
** same order of floating-point operations (SQLite 3.53's fts5_aux.c).
**
** phrase_hits(tbl) returns each phrase's row count, comma-separated (what a
** caller caches between queries).
**
** A bench prototype (bench/fts5_rank_ext.ts), not part of the product.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT1

typedef struct Bm25cData {
  int nPhrase;
  int bSkip;         /* some phrase is skipped: walk phrases, not instances */
  unsigned char *aSkip;
  double avgdl;
  double *aIDF;
  double *aFreq;
} Bm25cData;

static int countCb(const Fts5ExtensionApi *pApi, Fts5Context *pFts, void *pUser) {
  (void)pApi; (void)pFts;
  (*(sqlite3_int64 *)pUser)++;
  return SQLITE_OK;
}

static int getData(const Fts5ExtensionApi *pApi, Fts5Context *pFts,
                   int nVal, sqlite3_value **apVal, Bm25cData **pp) {
  int rc = SQLITE_OK;
  Bm25cData *p = (Bm25cData *)pApi->xGetAuxdata(pFts, 0);
  if (p == 0) {
    int nPhrase = pApi->xPhraseCount(pFts);
    int nCol = pApi->xColumnCount(pFts);
    sqlite3_int64 nRow = 0, nToken = 0;
    int i;
    sqlite3_int64 nByte = sizeof(Bm25cData) + sizeof(double) * nPhrase * 2 + nPhrase;
    p = (Bm25cData *)sqlite3_malloc64(nByte);
    if (p == 0) return SQLITE_NOMEM;
    memset(p, 0, nByte);
    p->nPhrase = nPhrase;
    p->aIDF = (double *)&p[1];
    p->aFreq = &p->aIDF[nPhrase];
    p->aSkip = (unsigned char *)&p->aFreq[nPhrase];
    rc = pApi->xRowCount(pFts, &nRow);
    if (rc == SQLITE_OK) rc = pApi->xColumnTotalSize(pFts, -1, &nToken);
    if (rc == SQLITE_OK) p->avgdl = (double)nToken / (double)nRow;
    for (i = 0; rc == SQLITE_OK && i < nPhrase; i++) {
      sqlite3_int64 nHit = 0;
      int a = nCol + i;
      if (a < nVal && sqlite3_value_type(apVal[a]) != SQLITE_NULL) {
        nHit = sqlite3_value_int64(apVal[a]);
        if (nHit < 0) {
          /* the caller says this phrase matches weight-0 columns only: its term is 0 */
          p->aSkip[i] = 1;
          p->bSkip = 1;
          p->aIDF[i] = 0.0;
          continue;
        }
      } else {
        rc = pApi->xQueryPhrase(pFts, i, (void *)&nHit, countCb);
      }
      if (rc == SQLITE_OK) {
        double idf = log((nRow - nHit + 0.5) / (nHit + 0.5));
        if (idf <= 0.0) idf = 1e-6;
        p->aIDF[i] = idf;
      }
    }
    if (rc != SQLITE_OK) {
      sqlite3_free(p);
      return rc;
    }
    rc = pApi->xSetAuxdata(pFts, p, sqlite3_free);
    if (rc != SQLITE_OK) return rc;
  }
  *pp = p;
  return rc;
}

static void bm25cFunction(const Fts5ExtensionApi *pApi, Fts5Context *pFts,
                          sqlite3_context *pCtx, int nVal, sqlite3_value **apVal) {
  const double k1 = 1.2;
  const double b = 0.75;
  int rc;
  double score = 0.0;
  Bm25cData *pData = 0;
  int i, nInst = 0, nTok = 0;
  double D;
  rc = getData(pApi, pFts, nVal, apVal, &pData);
  if (rc == SQLITE_OK) {
    memset(pData->aFreq, 0, sizeof(double) * pData->nPhrase);
    if (pData->bSkip) {
      /* each phrase's instances in (column, offset) order, as xInst gives them:
      ** the same sums in the same order, without merging the skipped phrases in */
      for (i = 0; rc == SQLITE_OK && i < pData->nPhrase; i++) {
        Fts5PhraseIter it;
        int ic, io;
        if (pData->aSkip[i]) continue;
        rc = pApi->xPhraseFirst(pFts, i, &it, &ic, &io);
        for (; rc == SQLITE_OK && ic >= 0; pApi->xPhraseNext(pFts, &it, &ic, &io)) {
          pData->aFreq[i] += (nVal > ic) ? sqlite3_value_double(apVal[ic]) : 1.0;
        }
      }
    } else {
      rc = pApi->xInstCount(pFts, &nInst);
    }
  }
  for (i = 0; rc == SQLITE_OK && i < nInst; i++) {
    int ip, ic, io;
    rc = pApi->xInst(pFts, i, &ip, &ic, &io);
    if (rc == SQLITE_OK) {
      double w = (nVal > ic) ? sqlite3_value_double(apVal[ic]) : 1.0;
      pData->aFreq[ip] += w;
    }
  }
  if (rc == SQLITE_OK) rc = pApi->xColumnSize(pFts, -1, &nTok);
  D = (double)nTok;
  if (rc == SQLITE_OK) {
    for (i = 0; i < pData->nPhrase; i++) {
      if (pData->aSkip[i]) continue;
      score += pData->aIDF[i] * ((pData->aFreq[i] * (k1 + 1.0)) /
                                 (pData->aFreq[i] + k1 * (1 - b + b * D / pData->avgdl)));
    }
    sqlite3_result_double(pCtx, -1.0 * score);
  } else {
    sqlite3_result_error_code(pCtx, rc);
  }
}

static void phraseHitsFunction(const Fts5ExtensionApi *pApi, Fts5Context *pFts,
                               sqlite3_context *pCtx, int nVal, sqlite3_value **apVal) {
  int nPhrase = pApi->xPhraseCount(pFts);
  int i, rc = SQLITE_OK;
  sqlite3_str *s = sqlite3_str_new(0);
  (void)nVal; (void)apVal;
  for (i = 0; rc == SQLITE_OK && i < nPhrase; i++) {
    sqlite3_int64 nHit = 0;
    rc = pApi->xQueryPhrase(pFts, i, (void *)&nHit, countCb);
    sqlite3_str_appendf(s, i ? ",%lld" : "%lld", nHit);
  }
  if (rc != SQLITE_OK) {
    sqlite3_free(sqlite3_str_finish(s));
    sqlite3_result_error_code(pCtx, rc);
    return;
  }
  sqlite3_result_text(pCtx, sqlite3_str_finish(s), -1, sqlite3_free);
}

static fts5_api *fts5Api(sqlite3 *db) {
  fts5_api *pRet = 0;
  sqlite3_stmt *pStmt = 0;
  if (sqlite3_prepare(db, "SELECT fts5(?1)", -1, &pStmt, 0) == SQLITE_OK) {
    sqlite3_bind_pointer(pStmt, 1, (void *)&pRet, "fts5_api_ptr", 0);
    sqlite3_step(pStmt);
  }
  sqlite3_finalize(pStmt);
  return pRet;
}

#ifdef _WIN32
__declspec(dllexport)
#endif
int sqlite3_bmc_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi) {
  fts5_api *api;
  int rc;
  SQLITE_EXTENSION_INIT2(pApi);
  api = fts5Api(db);
  if (api == 0 || api->iVersion < 2) {
    *pzErrMsg = sqlite3_mprintf("bm25c: FTS5 API v2 not found");
    return SQLITE_ERROR;
  }
  rc = api->xCreateFunction(api, "bm25c", 0, bm25cFunction, 0);
  if (rc == SQLITE_OK) rc = api->xCreateFunction(api, "phrase_hits", 0, phraseHitsFunction, 0);
  return rc;
}
