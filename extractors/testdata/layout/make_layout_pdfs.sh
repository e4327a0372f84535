#!/bin/sh
# Rebuild the layout test PDFs from their sources with LibreOffice (not needed by the tests:
# they read the committed PDFs; CI has no LibreOffice).
#   apt-get install -y --no-install-recommends libreoffice-writer-nogui fonts-liberation
#   sh extractors/testdata/layout/make_layout_pdfs.sh
set -eu
cd "$(dirname "$0")"
# Two columns under a full-width title, a running header and "Page N of M" footers.
soffice --headless --convert-to pdf two-columns.fodt
# Two tables (three and two columns) between paragraphs.
soffice --headless --infilter="HTML (StarWriter)" --convert-to pdf:writer_pdf_Export tables.html
