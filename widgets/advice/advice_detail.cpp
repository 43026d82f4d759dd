#include "widgets/advice/advice_detail.h"

#include <QUrl>

namespace cs::widgets {

namespace {

QString esc(const std::string& text) {
    return QString::fromStdString(text).toHtmlEscaped();
}

QString severityColour(core::Severity severity) {
    switch (severity) {
    case core::Severity::Critical:
        return QStringLiteral("#c62828");
    case core::Severity::Warning:
        return QStringLiteral("#b26a00");
    case core::Severity::Info:
        return QStringLiteral("#1565c0");
    }
    return {};
}

} // namespace

QString findingHtml(const core::Finding& f) {
    QString html;
    html += QStringLiteral(
                "<p style='margin-bottom:2px'><span style='color:%1;font-weight:bold'>%2</span>"
                "&nbsp;&nbsp;<span style='font-size:large;font-weight:bold'>%3</span></p>")
                .arg(severityColour(f.severity),
                     QString::fromLatin1(core::toString(f.severity)).toUpper(), esc(f.title));
    if (!f.file.empty()) {
        html +=
            QStringLiteral("<p><b>Where</b>&nbsp; <code>%1:%2</code>").arg(esc(f.file)).arg(f.line);
        if (!f.code.empty())
            html += QStringLiteral("<br><code>%1</code>").arg(esc(f.code));
        html += QStringLiteral("</p>");
    }
    if (!f.evidence.empty()) {
        html += QStringLiteral("<p style='margin-bottom:0'><b>Evidence</b>");
        if (!f.setting.empty())
            html += QStringLiteral(" (%1)").arg(esc(f.setting));
        html += QStringLiteral("</p><ul style='margin-top:2px'>");
        for (const auto& e : f.evidence)
            html += QStringLiteral("<li>%1</li>").arg(esc(e));
        html += QStringLiteral("</ul>");
    }
    if (!f.remedy.empty())
        html += QStringLiteral("<p><b>What to change</b><br>%1</p>").arg(esc(f.remedy));
    if (!f.gain.empty())
        html += QStringLiteral("<p><b>What to expect</b><br>%1</p>").arg(esc(f.gain));
    html += QStringLiteral("<p style='color:gray'>confidence %1% · rule %2")
                .arg(qRound(f.confidence * 100))
                .arg(esc(f.rule));
    if (f.tab != core::EvidenceTab::None)
        html += QStringLiteral(" · <a href='evidence:'>Show in the %1 tab</a>")
                    .arg(esc(core::toString(f.tab)));
    html += QStringLiteral("</p>");
    return html;
}

AdviceDetail::AdviceDetail(QWidget* parent) : QTextBrowser(parent) {
    setObjectName("adviceDetail");
    setOpenLinks(false);
    setOpenExternalLinks(false);
    connect(this, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        if (url.scheme() == QLatin1String("evidence"))
            emit evidenceRequested();
    });
}

void AdviceDetail::showFinding(const core::Finding* finding, const QString& message) {
    if (finding)
        setHtml(findingHtml(*finding));
    else
        setHtml(QStringLiteral("<p style='color:gray'>%1</p>").arg(message.toHtmlEscaped()));
}

} // namespace cs::widgets
